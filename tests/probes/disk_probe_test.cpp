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

TEST_CASE("probes: disk probe options name the rule they break and size one scratch file for all figures", "[disk]") {
  DiskProbeOptions o;
  o.file_size_bytes = 8u << 20;
  o.buffer_bytes = 4u << 20;
  o.sweep_buffers_bytes = {4096, 16u << 20};
  o.sweep_file_size_bytes = 2u << 20;
  CHECK(o.validate().empty());
  CHECK(o.scratch_file_bytes() == (16u << 20));  // the 16 MiB sweep buffer needs one 16 MiB call
  o.sweep_file_size_bytes = 1000;
  CHECK_THAT(o.validate(), Catch::Contains("sweep file size 1000") && Catch::Contains("4096"));
  o.sweep_file_size_bytes = 2u << 20;
  o.file_size_bytes = 6u << 20;
  CHECK_THAT(o.validate(), Catch::Contains("--disk-size") && Catch::Contains("multiple of the buffer"));
  o.file_size_bytes = 8u << 20;
  o.sweep_buffers_bytes = {4096};
  o.sweep_file_size_bytes = 12u << 20;
  o.max_file_size_bytes = 10u << 20;
  CHECK_THAT(o.validate(), Catch::Contains("its file of 12582912 bytes exceeds the limit"));
  o.max_file_size_bytes = 4ull << 30;
  o.sweep_time_cap_s = -1;
  CHECK_THAT(o.validate(), Catch::Contains("sweep time cap"));
}
