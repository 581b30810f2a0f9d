// Disk probe with small settings: throughputs, the buffer sweep, the size limit, no scratch file left.
#include <catch2/catch.hpp>

#include <filesystem>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/disk_probe.hpp"

using namespace hetperf;
using namespace hetperf::probes;

TEST_CASE("probes: disk probe with small settings sweeps buffer sizes and removes its file", "[disk]") {
  DiskProbeOptions o;
  o.directory = HETPERF_BINARY_DIR;
  o.file_size_bytes = 4u << 20;
  o.buffer_bytes = 1u << 20;
  o.sweep_buffers_bytes = {4096, 1u << 20};
  o.sweep_file_size_bytes = 2u << 20;
  o.repeat.min_samples = 3;
  o.repeat.time_cap_s = 0.5;
  DiskMeasurement m = probe_disk(o);
  CHECK(m.write_buffered_bytes_per_s.mean > 0);
  CHECK(m.write_direct_bytes_per_s.mean > 0);
  CHECK(m.read_direct_bytes_per_s.mean > 0);
  REQUIRE(m.buffer_sweep.size() == 2);
  CHECK(m.buffer_sweep[0].buffer_bytes == 4096);
  CHECK(m.buffer_sweep[1].read_bytes_per_s.mean > 0);
  for (const auto& e : std::filesystem::directory_iterator(HETPERF_BINARY_DIR)) {
    CHECK(e.path().filename().string().rfind(".hetperf-disk-probe.", 0) != 0);
  }
}

TEST_CASE("probes: disk probe enforces its size limit and buffer alignment", "[disk]") {
  DiskProbeOptions o;
  o.directory = HETPERF_BINARY_DIR;
  o.file_size_bytes = 8u << 20;
  o.max_file_size_bytes = 4u << 20;
  CHECK_THROWS_AS(probe_disk(o), InputError);
  DiskProbeOptions b;
  b.directory = HETPERF_BINARY_DIR;
  b.sweep_buffers_bytes = {1000};
  CHECK_THROWS_AS(probe_disk(b), InputError);
}
