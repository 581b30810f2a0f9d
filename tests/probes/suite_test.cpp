// Clean-up registry, the suite's behaviour on interruption, and the new measurement fields' round trip.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/probe_suite.hpp"

using namespace hetperf;
using namespace hetperf::probes;

TEST_CASE("probes: scratch files and child processes are removed with their owners", "[cleanup]") {
  std::filesystem::path p = std::filesystem::path(HETPERF_BINARY_DIR) / ("scratch-test." + std::to_string(::getpid()));
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::pause();
    ::_exit(0);
  }
  {
    ScratchFile f(p);
    std::ofstream(p) << "x";
    ChildProcess child(pid);
    CHECK(std::filesystem::exists(p));
    CHECK(::kill(pid, 0) == 0);
  }
  CHECK_FALSE(std::filesystem::exists(p));
  CHECK(::kill(pid, 0) != 0);  // killed and reaped
}

TEST_CASE("probes: an interrupted suite returns what it has, marked incomplete", "[cleanup]") {
  SuiteOptions o;
  o.only = {"cpu", "disk"};
  set_interrupted(true);
  Measurement m = run_probe_suite(o, nullptr);
  set_interrupted(false);
  CHECK_FALSE(m.complete);
  REQUIRE(m.skipped.size() == 2);
  CHECK(m.skipped[0].probe == "cpu");
  CHECK_THAT(m.skipped[0].reason, Catch::Contains("interrupted"));
  CHECK_FALSE(m.cpu);
  nlohmann::json j = to_json(m);
  CHECK(j["complete"] == false);
  CHECK(j["host"]["libraries"].contains("openblas"));
  CHECK(j["host"]["libraries"].contains("google_benchmark"));
}

TEST_CASE("probes: new optional measurement fields survive a write and read", "[format]") {
  Measurement m;
  m.machine = "m1";
  m.host.hostname = "m1";
  m.host.cores = 1;
  MemoryMeasurement mem;
  mem.points = {{0, summarize({0.0, 0.01})}, {100, summarize({0.5, 0.6})}};
  mem.points[1].charged_mb = 100.4;
  mem.reference_idle_s = summarize({0.01, 0.011});
  mem.knee_slowdown = 0.15;
  mem.knee_mb = 80;
  m.memory = mem;
  DiskMeasurement d;
  d.write_buffered_bytes_per_s = d.write_direct_bytes_per_s = d.read_direct_bytes_per_s = summarize({1e8, 1.1e8});
  d.buffer_sweep.push_back({4096, summarize({1e7, 1.1e7}), summarize({2e7, 2.1e7})});
  m.disk = d;
  NetMeasurement n;
  n.transport = "tcp";
  n.pingpong = {{0, summarize({1e-5, 1.1e-5})}, {1024, summarize({2e-5, 2.1e-5})}};
  n.bandwidth_bytes_per_s = 5e7;
  LogGPParameters g;
  g.small_size_bytes = 1;
  g.large_size_bytes = 65536;
  g.send_overhead_s = g.receive_overhead_s = g.gap_s = summarize({1e-6, 1.2e-6});
  g.gap_per_byte_s = 1e-10;
  g.latency_s = 2e-6;
  n.loggp = g;
  m.net = n;
  CpuMeasurement cpu;
  cpu.mips = cpu.mflops = summarize({1e3, 1.1e3});
  cpu.concurrency = ConcurrencyMeasurement{2048, 128, {{10.0, 11.0}}, {1.0}};
  m.cpu = cpu;
  Measurement back = measurement_from_json(to_json(m), "test");
  REQUIRE(back.cpu);
  REQUIRE(back.cpu->concurrency);
  CHECK(back.cpu->concurrency->speed == std::vector<double>{1.0});
  CHECK(back.cpu->concurrency->rates == std::vector<std::vector<double>>{{10.0, 11.0}});
  nlohmann::json bad = to_json(m);
  bad["probes"]["cpu"]["concurrency"]["speed"] = {1.0, 0.9};  // two speeds on one core
  CHECK_THROWS_WITH(measurement_from_json(bad, "m.json"), Catch::Contains("$.probes.cpu.concurrency.speed"));
  bad["probes"]["cpu"]["concurrency"]["speed"] = {1.2};
  CHECK_THROWS_WITH(measurement_from_json(bad, "m.json"), Catch::Contains("$.probes.cpu.concurrency.speed[0]"));
  REQUIRE(back.memory);
  CHECK(*back.memory->knee_mb == 80);
  CHECK_FALSE(back.memory->points[0].charged_mb);
  CHECK(back.memory->points[1].charged_mb == 100.4);
  CHECK(back.memory->reference_idle_s->n == 2);
  REQUIRE(back.disk);
  REQUIRE(back.disk->buffer_sweep.size() == 1);
  CHECK(back.disk->buffer_sweep[0].read_bytes_per_s.mean == Approx(2.05e7));
  REQUIRE(back.net);
  CHECK(*back.net->bandwidth_bytes_per_s == 5e7);
  REQUIRE(back.net->loggp);
  CHECK(back.net->loggp->large_size_bytes == 65536);
  CHECK(back.net->loggp->latency_s == 2e-6);
}
