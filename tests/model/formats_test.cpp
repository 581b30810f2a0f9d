// Round trips and malformed-input cases for the four file formats (measurement, profile, workload,
// prediction): every reader names the file, the JSON path and what it expected.
#include <catch2/catch.hpp>

#include <cmath>

#include "hetperf/model/json_node.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "test_support.hpp"

using namespace hetperf;
using hetperf::test::input_error;

namespace {

Measurement sample_measurement() {
  Measurement m;
  m.machine = "node-a";
  m.command = "hetperf probe --quick";
  m.host.hostname = "node-a";
  m.host.cpu_model = "Test CPU";
  m.host.cores = 4;
  m.host.memory_bytes = 8ull << 30;
  m.host.swap_bytes = 1ull << 30;
  m.host.libraries["x"] = "1.0";
  CpuMeasurement c;
  c.mips = summarize({1000, 1010, 990});
  c.mips_method = "estimate: test";
  c.mflops = summarize({500, 510});
  c.kernels.push_back({"dgemm", 64, 0, summarize({1e-4, 1.1e-4})});
  c.integration_step_s = summarize({2e-8, 2.1e-8});
  m.cpu = c;
  MemoryMeasurement mem;
  mem.main_memory_mb = 512;
  mem.confinement = "cgroup";
  mem.points = {{64, summarize({0.01, 0.02})}, {128, summarize({0.1, 0.12})}};
  mem.points[1].reference_major_faults = 2;
  mem.points[1].charged_mb = 128.4;
  mem.points[1].transient_rounds = 35;
  mem.points[1].settle_rounds = 140;
  mem.points[1].device_read_s = 68e-6;
  mem.points[1].spell_correction = 0.25;
  mem.points[1].device_scale = 0.8;
  m.memory = mem;
  DiskMeasurement d;
  d.directory = "/tmp";
  d.direct_io = true;
  d.write_buffered_bytes_per_s = summarize({1e8, 1.1e8});
  d.write_direct_bytes_per_s = summarize({2e8, 2.1e8});
  d.read_direct_bytes_per_s = summarize({3e8, 3.1e8});
  m.disk = d;
  NetMeasurement n;
  n.transport = "mpi";
  n.hosts = {"node-a", "node-a"};
  n.pingpong = {{0, summarize({4e-7, 4.1e-7})}, {1024, summarize({7e-7, 7.2e-7})}};
  n.handoff = HandoffMeasurement{2, 1 << 20, summarize({4e-4, 4.2e-4}), summarize({1.2e-2, 1.3e-2}), 4.3e-3};
  m.net = n;
  m.skipped.push_back({"memory", "no root"});
  return m;
}

Profile sample_profile() {
  Profile p;
  p.command = "hetperf calibrate";
  Computer c;
  c.name = "c1";
  c.cores = 2;
  c.mips = 1145.86;
  c.main_memory_mb = 1024;
  c.virtual_memory_mb = 1024;
  c.disk_read_bytes_per_s = 76.28e6;
  c.disk_write_bytes_per_s = 65.55e6;
  c.overhead_latency_s = 40e-6;
  c.slowdown = unimpp::SlowdownFunction{1024, {0.0012, -0.0065}, unimpp::ExponentialSlowdown{0.0938, 0.0039}};
  p.computers.push_back(c);
  c.name = "c2";
  c.slowdown.reset();
  p.computers.push_back(c);
  p.network = {40e-6, 12.5e6, {{"r2", 0.99}}};
  p.provenance.push_back({"a.json", "c1", "2026-01-01T00:00:00Z", "ab"});
  p.warnings.push_back("c2: memory slowdown not measured");
  return p;
}

const char* kWorkload = R"({
  "schema": "hetperf.workload/1",
  "name": "w",
  "seed": 7,
  "policy": {"placement": "least_loaded"},
  "processes": [
    {"name": "a", "count": 3, "arrival_s": 1.5, "mi": 100, "static_memory_mb": 10,
     "dynamic_memory_mb": {"distribution": "uniform", "min": 1, "max": 2},
     "disk_read": {"ops": 2, "bytes_per_op": 4096}, "messages": {"count": 2, "bytes": 32}, "sleep_s": 0.5}
  ],
  "generators": [
    {"process": {"name": "g", "mi": {"distribution": "exponential", "mean": 50}},
     "interarrival_s": {"distribution": "weibull", "shape": 1.5, "scale": 2}, "count": 10}
  ]
})";

// Applies `patch` (a JSON merge patch) to `base` and returns the reader's error message.
template <typename Reader>
std::string error_after_patch(const nlohmann::json& base, const nlohmann::json& patch, Reader read) {
  nlohmann::json j = base;
  j.merge_patch(patch);
  return input_error([&] { read(j); });
}

}  // namespace

TEST_CASE("model: formats: a measurement file round-trips") {
  Measurement m = sample_measurement();
  nlohmann::json j = to_json(m);
  Measurement back = measurement_from_json(j, "m.json");
  CHECK(to_json(back) == j);
  CHECK(back.cpu->kernels.at(0).kernel == "dgemm");
  CHECK(back.memory->points.at(1).occupied_mb == 128);
  CHECK(back.memory->points.at(1).transient_rounds == 35);
  CHECK(back.memory->points.at(1).settle_rounds == 140);
  CHECK(back.memory->points.at(1).device_read_s == 68e-6);
  CHECK(back.memory->points.at(1).spell_correction == 0.25);
  CHECK(back.memory->points.at(1).device_scale == 0.8);
  CHECK(back.memory->points.at(1).charged_mb == 128.4);
  CHECK(back.net->pingpong.at(1).size_bytes == 1024);
  CHECK(back.net->handoff->period_at_cores_s->mean == Approx(4.1e-4));
  CHECK(back.net->handoff->handoff_s == 4.3e-3);
}

TEST_CASE("model: formats: the time-slice probe's record round-trips and its slice is bounded") {
  Measurement m = sample_measurement();
  m.cpu->time_slice = TimeSliceMeasurement{3, 1.0, summarize({0.004, 0.004, 0.0041, 0.0039, 0.008}), 0.004};
  nlohmann::json j = to_json(m);
  CHECK(j["probes"]["cpu"]["time_slice"]["slice_s"] == 0.004);
  Measurement back = measurement_from_json(j, "m.json");
  REQUIRE(back.cpu->time_slice);
  CHECK(back.cpu->time_slice->processes == 3);
  CHECK(back.cpu->time_slice->gap_s.n == 5);
  CHECK(to_json(back) == j);
  j["probes"]["cpu"]["time_slice"]["slice_s"] = 3;
  CHECK(input_error([&] { measurement_from_json(j, "m.json"); }) ==
        "m.json: $.probes.cpu.time_slice.slice_s: expected a time slice of 1e-5 to 1 s, got 3");
  j["probes"]["cpu"]["time_slice"]["slice_s"] = 0.004;
  j["probes"]["cpu"]["time_slice"]["processes"] = 1;
  CHECK(input_error([&] { measurement_from_json(j, "m.json"); }).find("$.probes.cpu.time_slice.processes") !=
        std::string::npos);
}

TEST_CASE("model: formats: the host's CPU quota and the ping-pong's timed sends round-trip and are checked") {
  Measurement m = sample_measurement();
  m.host.cpu_quota = CpuQuota{0.5, 0.01};
  m.net->pingpong.back().send_s = summarize({0.08, 0.09, 0.085});
  nlohmann::json j = to_json(m);
  CHECK(j["host"]["cpu_quota"]["share"] == 0.5);
  Measurement back = measurement_from_json(j, "m.json");
  REQUIRE(back.host.cpu_quota);
  CHECK(back.host.cpu_quota->period_s == 0.01);
  REQUIRE(back.net->pingpong.back().send_s);
  CHECK(back.net->pingpong.back().send_s->samples.size() == 3);
  CHECK(to_json(back) == j);
  auto read = [](const nlohmann::json& x) { measurement_from_json(x, "m.json"); };
  CHECK(error_after_patch(j, {{"host", {{"cpu_quota", {{"share", 0}}}}}}, read) ==
        "m.json: $.host.cpu_quota.share: expected a positive number, got 0");
  CHECK(error_after_patch(j, {{"host", {{"cpu_quota", {{"period_s", 100}}}}}}, read) ==
        "m.json: $.host.cpu_quota.period_s: expected a period of at most 10 s, got 100");
  nlohmann::json negative = j;
  negative["probes"]["net"]["pingpong"].back()["send_s"]["mean"] = -1;
  CHECK(input_error([&] { read(negative); }).find("send_s.mean: expected a non-negative number") != std::string::npos);
}

TEST_CASE("model: formats: the ping-pong's busy sends round-trip and are checked") {
  Measurement m = sample_measurement();
  m.net->busy_sends = {{8192, 1e-3, summarize({2e-5, 3e-5})}, {16384, 1e-3, summarize({1.004e-3})}};
  nlohmann::json j = to_json(m);
  Measurement back = measurement_from_json(j, "m.json");
  REQUIRE(back.net->busy_sends.size() == 2);
  CHECK(back.net->busy_sends[1].size_bytes == 16384);
  CHECK(back.net->busy_sends[0].send_s.samples.size() == 2);
  CHECK(to_json(back) == j);
  auto read = [](const nlohmann::json& x) { measurement_from_json(x, "m.json"); };
  nlohmann::json bad = j;
  bad["probes"]["net"]["busy_sends"][1]["size_bytes"] = 4096;
  CHECK(input_error([&] { read(bad); }) ==
        "m.json: $.probes.net.busy_sends[1].size_bytes: expected sizes in strictly ascending order, got 4096");
  bad = j;
  bad["probes"]["net"]["busy_sends"][0]["receiver_busy_s"] = 0;
  CHECK(input_error([&] { read(bad); }) ==
        "m.json: $.probes.net.busy_sends[0].receiver_busy_s: expected a positive number, got 0");
  bad = j;
  bad["probes"]["net"]["busy_sends"][0]["receiver_busy_s"] = 1e300;
  CHECK(input_error([&] { read(bad); }).find("receiver_busy_s: expected a number of seconds in (0, 1000]") !=
        std::string::npos);
  bad = j;
  bad["probes"]["net"]["busy_sends"][0].erase("send_s");
  CHECK(input_error([&] { read(bad); }).find("$.probes.net.busy_sends[0].send_s: missing") != std::string::npos);
}

TEST_CASE("model: formats: a profile's eager limits round-trip and are checked") {
  Profile p = sample_profile();
  CHECK(p.network.eager_limit_bytes() == 65536);  // not measured: MPICH's default
  p.network.eager_limit = EagerLimit{8192, "m.json (loopback)"};
  p.computers[0].local_eager_limit = EagerLimit{1u << 20, ""};
  nlohmann::json j = to_json(p);
  CHECK(j["network"]["eager_limit"]["bytes"] == 8192);
  CHECK_FALSE(j["computers"][0]["local_eager_limit"].contains("source"));
  CHECK_FALSE(j["computers"][1].contains("local_eager_limit"));
  Profile back = profile_from_json(j, "p.json");
  CHECK(back.network.eager_limit_bytes() == 8192);
  CHECK(back.computers[0].local_eager_limit->bytes == 1u << 20);
  CHECK(to_json(back) == j);
  j["network"]["eager_limit"]["bytes"] = -1;
  CHECK(input_error([&] {
          profile_from_json(j, "p.json");
        }).find("p.json: $.network.eager_limit.bytes: expected an integer") == 0);
  j["network"]["eager_limit"] = {{"byte", 1}};
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }).find("$.network.eager_limit") != std::string::npos);
  j = to_json(p);
  j["computers"][0]["local_eager_limit"] = 4096;
  CHECK(input_error([&] {
          profile_from_json(j, "p.json");
        }).find("p.json: $.computers[0].local_eager_limit: expected an object") == 0);
}

TEST_CASE("model: formats: the hand-off from the fan-out's periods, as the simulator's rounds take them") {
  // A round with m ranks takes (m - 1)(t + h): t = 0.2 ms alone (2 cores, 1 message a round), and with
  // h = 4 ms on 4 ranks 3 (0.2 + 4) ms.
  CHECK(handoff_from_fanout(2, 0.2e-3, 3 * 4.2e-3) == Approx(4e-3));
  // One core: no run without oversubscription has a peer; h takes the whole message.
  CHECK(handoff_from_fanout(1, std::nullopt, 5e-3) == Approx(5e-3));
  // Faster oversubscribed than alone (noise): no negative hand-off.
  CHECK(handoff_from_fanout(4, 3e-3, 1e-3) == 0);
  nlohmann::json base = to_json(sample_measurement());
  auto read = [](const nlohmann::json& j) { measurement_from_json(j, "m.json"); };
  CHECK(error_after_patch(base, {{"probes", {{"net", {{"handoff", {{"handoff_s", -1}}}}}}}}, read) ==
        "m.json: $.probes.net.handoff.handoff_s: expected a non-negative number, got -1");
  CHECK(error_after_patch(base, {{"probes", {{"net", {{"handoff", {{"period_at_cores_s", nullptr}}}}}}}}, read)
            .find("$.probes.net.handoff.period_at_cores_s: missing required field") != std::string::npos);
}

TEST_CASE("model: formats: malformed measurement files name the field") {
  nlohmann::json base = to_json(sample_measurement());
  auto read = [](const nlohmann::json& j) { measurement_from_json(j, "m.json"); };
  CHECK(error_after_patch(base, {{"schema", "hetperf.profile/1"}}, read).find("expected a hetperf.measurement file") !=
        std::string::npos);
  CHECK(error_after_patch(base, {{"host", {{"cores", 0}}}}, read) ==
        "m.json: $.host.cores: expected an integer in [1, 1048576], got 0");
  CHECK(error_after_patch(base, {{"probes", {{"cpu", {{"mips", {{"mean", -1}}}}}}}}, read) ==
        "m.json: $.probes.cpu.mips.mean: expected a positive number, got -1");
  CHECK(error_after_patch(base, {{"probes", {{"disk", {{"read_direct_bytes_per_s", nullptr}}}}}}, read)
            .find("$.probes.disk.read_direct_bytes_per_s: missing required field") != std::string::npos);
  CHECK(error_after_patch(base, {{"probes", {{"gpu", nlohmann::json::object()}}}}, read)
            .find("$.probes.gpu: unknown field") != std::string::npos);
  nlohmann::json unordered = base;
  unordered["probes"]["net"]["pingpong"][1]["size_bytes"] = 0;
  CHECK(input_error([&] {
          read(unordered);
        }).find("$.probes.net.pingpong[1].size_bytes: expected sizes in strictly ascending order") !=
        std::string::npos);
  nlohmann::json nan = base;
  nan["probes"]["cpu"]["mflops"]["ci95"] = {1, "x"};
  CHECK(input_error([&] { read(nan); }).find("$.probes.cpu.mflops.ci95[1]: expected a number") != std::string::npos);
}

TEST_CASE("model: formats: a profile round-trips, including slowdown functions and count expansion") {
  Profile p = sample_profile();
  nlohmann::json j = to_json(p);
  Profile back = profile_from_json(j, "p.json");
  CHECK(to_json(back) == j);
  REQUIRE(back.computers[0].slowdown);
  CHECK(back.computers[0].alpha(1500) == Approx(0.0938 * std::exp(0.0039 * 1500)));
  CHECK_FALSE(back.computers[1].slowdown);

  nlohmann::json many = j;
  many["computers"] = nlohmann::json::array({j["computers"][0]});  // {x} alone is a copy of x under clang
  many["computers"][0]["count"] = 3;
  Profile expanded = profile_from_json(many, "p.json");
  REQUIRE(expanded.computers.size() == 3);
  CHECK(expanded.computers[2].name == "c1-3");
}

TEST_CASE("model: formats: malformed profiles name the field") {
  nlohmann::json base = to_json(sample_profile());
  auto read = [](const nlohmann::json& j) { profile_from_json(j, "p.json"); };
  CHECK(error_after_patch(base, {{"schema", "hetperf.profile/2"}}, read).find("version 2") != std::string::npos);
  CHECK(error_after_patch(base, {{"network", {{"bandwidth_bytes_per_s", 0}}}}, read) ==
        "p.json: $.network.bandwidth_bytes_per_s: expected a positive number, got 0");
  nlohmann::json j = base;
  j["computers"][1]["mips"] = -3;
  CHECK(input_error([&] { read(j); }) == "p.json: $.computers[1].mips: expected a positive number, got -3");
  j = base;
  j["computers"][1]["name"] = "c1";
  CHECK(input_error([&] { read(j); }).find("$.computers[1].name: expected a name not used by another computer") !=
        std::string::npos);
  j = base;
  j["computers"][0]["slowdown"]["main"]["kind"] = "cubic";
  CHECK(input_error([&] { read(j); }).find("$.computers[0].slowdown.main.kind") != std::string::npos);
  j = base;
  j["computers"][0].erase("main_memory_mb");
  CHECK(input_error([&] { read(j); }).find("$.computers[0].main_memory_mb: missing required field") !=
        std::string::npos);
  CHECK(error_after_patch(base, {{"computers", nlohmann::json::array()}}, read)
            .find("$.computers: expected an array of at least 1") != std::string::npos);
}

TEST_CASE("model: formats: a profile's redistribution model round-trips and is validated") {
  Profile p = sample_profile();
  p.network.redistribution = RedistributionModel{0.004, 3e8, {{"r2", 0.9}}};
  nlohmann::json j = to_json(p);
  Profile back = profile_from_json(j, "p.json");
  REQUIRE(back.network.redistribution);
  CHECK(back.network.redistribution->bandwidth_bytes_per_s == 3e8);
  CHECK(to_json(back) == j);
  j["network"]["redistribution"]["bandwidth_bytes_per_s"] = -1;
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }) ==
        "p.json: $.network.redistribution.bandwidth_bytes_per_s: expected a positive number, got -1");
  j["network"]["redistribution"] = {{"latency_s", 0.1}};
  CHECK(input_error([&] {
          profile_from_json(j, "p.json");
        }).find("$.network.redistribution.bandwidth_bytes_per_s: missing") != std::string::npos);
}

TEST_CASE("model: formats: a profile's network send buffer round-trips and is validated") {
  Profile p = sample_profile();
  p.network.send_buffer = SendBuffer{1.2e6, {{"sends", 40}}};
  nlohmann::json j = to_json(p);
  Profile back = profile_from_json(j, "p.json");
  REQUIRE(back.network.send_buffer);
  CHECK(back.network.send_buffer->bytes == 1.2e6);
  CHECK(to_json(back) == j);
  j["network"]["send_buffer"]["bytes"] = -1;
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }) ==
        "p.json: $.network.send_buffer.bytes: expected a non-negative number, got -1");
  j["network"]["send_buffer"] = {{"byte", 1}};
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }).find("$.network.send_buffer") != std::string::npos);
}

TEST_CASE("model: formats: a computer's scheduler slices round-trip and are bounded") {
  for (auto [key, member] :
       {std::pair{"time_slice_s", &Computer::time_slice_s}, std::pair{"handoff_slice_s", &Computer::handoff_slice_s}}) {
    INFO(key);
    Profile p = sample_profile();
    p.computers[0].*member = 0.004;
    nlohmann::json j = to_json(p);
    CHECK(j["computers"][0]["communication_cpu"][key] == 0.004);
    CHECK_FALSE(j["computers"][1].contains("communication_cpu"));
    Profile back = profile_from_json(j, "p.json");
    CHECK(back.computers[0].*member == 0.004);
    CHECK(back.computers[1].*member == 0);
    CHECK(to_json(back) == j);
    const std::string path = std::string("p.json: $.computers[0].communication_cpu.") + key;
    j["computers"][0]["communication_cpu"][key] = 5e-324;
    CHECK(input_error([&] { profile_from_json(j, "p.json"); }).find(path + ": expected a time slice of 1e-5 to 1 s") !=
          std::string::npos);
    j["computers"][0]["communication_cpu"][key] = 2;
    CHECK(input_error([&] { profile_from_json(j, "p.json"); }).find(path) != std::string::npos);
    j["computers"][0]["communication_cpu"][key] = 0;
    CHECK(input_error([&] { profile_from_json(j, "p.json"); }) == path + ": expected a positive number, got 0");
  }
}

TEST_CASE("model: formats: a computer's disk flush latency round-trips and is bounded") {
  Profile p = sample_profile();
  p.computers[0].disk_sync_latency_s = 0.0075;
  nlohmann::json j = to_json(p);
  CHECK(j["computers"][0]["disk_sync_latency_s"] == 0.0075);
  CHECK_FALSE(j["computers"][1].contains("disk_sync_latency_s"));
  Profile back = profile_from_json(j, "p.json");
  CHECK(back.computers[0].disk_sync_latency_s == 0.0075);
  CHECK(back.computers[1].disk_sync_latency_s == 0);
  CHECK(to_json(back) == j);
  j["computers"][0]["disk_sync_latency_s"] = 11;
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }) ==
        "p.json: $.computers[0].disk_sync_latency_s: expected a number of seconds in [0, 10], got 11");
  j["computers"][0]["disk_sync_latency_s"] = -1e-3;
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }).find("$.computers[0].disk_sync_latency_s") !=
        std::string::npos);
}

TEST_CASE("model: formats: a profile's diagnostics and concurrency speeds round-trip, whole-run ratios are refused") {
  Profile p = sample_profile();
  p.computers[0].concurrency_speed = {1.0, 0.8};
  p.diagnostics["calibration_runs"] = nlohmann::json::array({{{"trace", "t1.json"}, {"measured_over_predicted", 1.1}}});
  nlohmann::json j = to_json(p);
  Profile back = profile_from_json(j, "p.json");
  CHECK(back.computers[0].concurrency_speed == std::vector<double>{1.0, 0.8});
  CHECK(back.diagnostics == p.diagnostics);
  CHECK(to_json(back) == j);
  nlohmann::json bad = j;
  bad["computers"][0]["concurrency_speed"] = {1.0, 0.9, 0.8, 0.7, 0.6};  // more than its cores
  CHECK(input_error([&] { profile_from_json(bad, "p.json"); }).find("$.computers[0].concurrency_speed") !=
        std::string::npos);
  bad = j;
  bad["placements"] = nlohmann::json::array({{{"pattern", {"a", "b"}}, {"run_scales", nlohmann::json::array()}}});
  CHECK(input_error([&] { profile_from_json(bad, "p.json"); }).find("$.placements: expected no \"placements\"") !=
        std::string::npos);
  bad = j;
  bad["diagnostics"] = 3;
  CHECK(input_error([&] { profile_from_json(bad, "p.json"); }).find("$.diagnostics") != std::string::npos);
}

TEST_CASE(
    "model: formats: a profile's count is bounded, so a few bytes cannot expand into gigabytes (found by tests/fuzz)") {
  // tests/fuzz/corpus/profile/regress-count-1e7: "count": 10000000 copied one computer for seconds (timeout).
  nlohmann::json base = to_json(sample_profile());
  auto read = [](const nlohmann::json& j) { profile_from_json(j, "p.json"); };
  nlohmann::json j = base;
  j["computers"][0]["count"] = 10'000'000;
  CHECK(input_error([&] { read(j); }) ==
        "p.json: $.computers[0].count: expected an integer in [1, 100000], got 10000000");
  j["computers"][0]["count"] = 99'999;
  j["computers"][1]["count"] = 2;
  CHECK(
      input_error([&] { read(j); }) ==
      "p.json: $.computers[1].count: expected at most 100000 computers in a profile in all (99999 before this entry), "
      "got 2");
  j["computers"][1].erase("count");
  CHECK(profile_from_json(j, "p.json").computers.size() == 100'000);
}

TEST_CASE("model: formats: a workload round-trips, with distributions and generators") {
  nlohmann::json j = nlohmann::json::parse(kWorkload);
  Workload w = workload_from_json(j, "w.json");
  CHECK(w.seed == 7);
  CHECK(w.processes.at(0).count == 3);
  CHECK(w.processes[0].dynamic_memory_mb.kind == Distribution::Kind::kUniform);
  CHECK(w.generators.at(0).count == 10);
  nlohmann::json out = to_json(w);
  Workload back = workload_from_json(out, "w2.json");
  CHECK(to_json(back) == out);
}

TEST_CASE("model: formats: malformed workloads name the field") {
  nlohmann::json base = nlohmann::json::parse(kWorkload);
  auto read = [](const nlohmann::json& j) { workload_from_json(j, "w.json"); };
  nlohmann::json j = base;
  j["processes"][0]["mi"] = -5;
  CHECK(input_error([&] { read(j); }) == "w.json: $.processes[0].mi: expected a non-negative number, got -5");
  j = base;
  j["processes"][0]["dynamic_memory_mb"] = {{"distribution", "uniform"}, {"min", 5}, {"max", 1}};
  CHECK(input_error([&] { read(j); }) == "w.json: $.processes[0].dynamic_memory_mb.max: expected max >= min, got 1");
  j = base;
  j["processes"][0]["dynamic_memory_mb"] = {{"distribution", "normal"}, {"mean", 5}, {"stddev", 1}};
  CHECK(input_error([&] {
          read(j);
        }).find("$.processes[0].dynamic_memory_mb.distribution: expected a distribution with non-negative support") !=
        std::string::npos);
  j = base;
  j["generators"][0]["interarrival_s"] = {
      {"distribution", "hyperexponential"}, {"weights", {0.5, 0.2}}, {"means", {1, 2}}};
  CHECK(input_error([&] { read(j); }).find("$.generators[0].interarrival_s.weights: expected weights that sum to 1") !=
        std::string::npos);
  j = base;
  j["generators"][0].erase("count");
  CHECK(input_error([&] { read(j); }).find("$.generators[0]: expected an object with \"count\" or \"horizon_s\"") !=
        std::string::npos);
  CHECK(error_after_patch(base, {{"seed", "x"}}, read).find("$.seed: expected an integer") != std::string::npos);
  CHECK(error_after_patch(base, {{"schema", "hetperf.workloads/1"}}, read).find("expected a hetperf.workload file") !=
        std::string::npos);
  j = base;
  j["processes"][0]["memory_mb"] = 3;
  CHECK(input_error([&] { read(j); }).find("$.processes[0].memory_mb: unknown field 'memory_mb'") != std::string::npos);
}

TEST_CASE("model: formats: two processes with the same name are an error naming both") {
  nlohmann::json j = nlohmann::json::parse(kWorkload);
  j["processes"].push_back({{"name", "a"}, {"mi", 1}});
  CHECK(
      input_error([&] { workload_from_json(j, "w.json"); }) ==
      "w.json: $.processes[1].name: expected a name no other process has, got \"a\" (also the name of $.processes[0])");
  j = nlohmann::json::parse(kWorkload);
  j["generators"][0]["process"]["name"] = "a";
  CHECK(input_error([&] { workload_from_json(j, "w.json"); }) ==
        "w.json: $.generators[0].process.name: expected a name no other process has, got \"a\" (also the name of "
        "$.processes[0])");
}

TEST_CASE("model: formats: distributions sample deterministically from the seed and match their means") {
  nlohmann::json j = nlohmann::json::parse(
      R"([{"distribution": "exponential", "mean": 2}, {"distribution": "uniform", "min": 1, "max": 3},
          {"distribution": "weibull", "shape": 2, "scale": 1}, {"distribution": "lognormal", "mu": 0, "sigma": 0.5},
          {"distribution": "hyperexponential", "weights": [0.3, 0.7], "means": [1, 5]},
          {"distribution": "empirical", "samples": [1, 2, 3, 10]}, 4.5])");
  for (const JsonNode& node : JsonNode(j, "d.json").items()) {
    Distribution d = distribution_from_json(node, Range::kNonNegative);
    Rng a(123), b(123);
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      double x = d.sample(a);
      REQUIRE(x == d.sample(b));
      REQUIRE(x >= 0);
      sum += x;
    }
    CHECK(sum / n == Approx(d.mean()).epsilon(0.02));
  }
}

TEST_CASE("model: formats: a prediction round-trips and malformed predictions name the field") {
  Prediction p;
  p.command = "hetperf predict";
  p.workload_name = "w";
  p.seed = 3;
  p.placement = "round_robin";
  p.processes.push_back({"a", "c1", 0, 0, 2.5, 2.5, {1, 0.5, 0.25, 0.25, 0, 0.5, 0}, {}});
  p.processes.push_back({"b", "c1", 1, 1, 2.0, 1.0, {1, 0, 0, 0, 0, 0, 0}, {}});
  p.computers.push_back({"c1", 2.5, 1.0, 10, 2, {}});
  p.summary = summarize_responses(p.processes);
  CHECK(p.summary.mean_response_s == Approx(1.75));
  CHECK(p.summary.makespan_s == Approx(2.5));
  nlohmann::json j = to_json(p);
  Prediction back = prediction_from_json(j, "r.json");
  CHECK(to_json(back) == j);
  auto read = [](const nlohmann::json& x) { prediction_from_json(x, "r.json"); };
  nlohmann::json bad = j;
  bad["processes"][1]["finish_s"] = 0.5;
  CHECK(input_error([&] { read(bad); }).find("$.processes[1].finish_s: expected arrival_s <= start_s <= finish_s") !=
        std::string::npos);
  bad = j;
  bad["computers"][0]["utilisation"] = 1.5;
  CHECK(input_error([&] { read(bad); }) == "r.json: $.computers[0].utilisation: expected a number in [0, 1], got 1.5");
  bad = j;
  bad["summary"].erase("makespan_s");
  CHECK(input_error([&] { read(bad); }).find("$.summary.makespan_s: missing required field") != std::string::npos);
  bad = j;
  bad["processes"][0]["breakdown_s"]["cpu"] = "fast";
  CHECK(input_error([&] { read(bad); }).find("$.processes[0].breakdown_s.cpu: expected a non-negative number") !=
        std::string::npos);
  CHECK(error_after_patch(j, {{"schema", "hetperf.prediction/9"}}, read).find("version 9") != std::string::npos);
}

TEST_CASE("model: formats: re-touched pages round-trip in measurements and profiles, and are checked") {
  Measurement m = sample_measurement();
  m.cpu->page_retouch =
      PageRetouchMeasurement{1024, 2, {0, 0.01, 0.08}, {6e-6, 4e-4, 3e-3}, {{5e-6, 7e-6}, {3e-4, 5e-4}, {2e-3, 4e-3}}};
  nlohmann::json j = to_json(m);
  Measurement back = measurement_from_json(j, "m.json");
  REQUIRE(back.cpu->page_retouch);
  CHECK(back.cpu->page_retouch->touch_s.at(2) == 3e-3);
  CHECK(to_json(back) == j);
  j["probes"]["cpu"]["page_retouch"]["gaps_s"] = {0, 0.08, 0.01};
  CHECK(input_error([&] { measurement_from_json(j, "m.json"); }) ==
        "m.json: $.probes.cpu.page_retouch.gaps_s[2]: expected up to 64 gaps ascending from 0 to at most 10 s, got "
        "0.01");

  Profile p = sample_profile();
  p.computers[0].page_retouch = PageRetouch{{0, 0.01, 0.08}, {0, 4e-7, 3e-6}};
  nlohmann::json pj = to_json(p);
  CHECK_FALSE(pj["computers"][1].contains("page_retouch"));
  Profile pback = profile_from_json(pj, "p.json");
  REQUIRE(pback.computers[0].page_retouch);
  CHECK(to_json(pback) == pj);
  const PageRetouch& r = *pback.computers[0].page_retouch;
  CHECK(r.cost_at(0) == 0);
  CHECK(r.cost_at(0.005) == Approx(2e-7));  // linear between the measured ages
  CHECK(r.cost_at(0.045) == Approx(1.7e-6));
  CHECK(r.cost_at(10) == 3e-6);  // held beyond the last
  pj["computers"][0]["page_retouch"]["cost_per_page_s"] = {0, 3e-6, 4e-7};
  CHECK(input_error([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: $.computers[0].page_retouch.cost_per_page_s[2]: expected costs per page non-decreasing with the age, "
        "at most 0.01 s, got 4e-07");
  pj["computers"][0]["page_retouch"]["cost_per_page_s"] = {0, 3e-6};
  CHECK(input_error([&] { profile_from_json(pj, "p.json"); }) ==
        "p.json: $.computers[0].page_retouch.cost_per_page_s: expected one cost per age, got an array of 2");
  pj["computers"][0]["page_retouch"] = {{"ages_s", {0.01}}, {"cost_per_page_s", {0}}};
  CHECK(input_error([&] { profile_from_json(pj, "p.json"); }).find("page_retouch.ages_s[0]: expected ages ascending") !=
        std::string::npos);
}

TEST_CASE("model: re-touched pages under a cap cost cap (1 - exp(-P cost / cap)), charged as the pages come") {
  const PageRetouch r{{0, 0.1}, {0, 1e-6}, {0, 2e-3}};
  // At age 0.1 s: 1000 pages cost 2e-3 (1 - e^-0.5); the next 1000 the rest up to 2e-3 (1 - e^-1).
  CHECK(r.charge_s(0.1, 0, 1000) == Approx(2e-3 * (1 - std::exp(-0.5))));
  CHECK(r.charge_s(0.1, 1000, 1000) == Approx(2e-3 * (std::exp(-0.5) - std::exp(-1.0))));
  CHECK(r.charge_s(0.1, 0, 1e9) == Approx(2e-3));
  CHECK(r.charge_s(0, 0, 1000) == 0);
  const PageRetouch uncapped{{0, 0.1}, {0, 1e-6}};
  CHECK(uncapped.charge_s(0.05, 0, 1000) == Approx(5e-4));
  // The rule: a rank that waited 0.1 s over iteration 0 pays, in iteration 1, for its laswp's and getrf's
  // pages (4 columns of 1024 rows: 8 pages), not for its gemm's.
  RestClock rest;
  CHECK(rest.charge_s(uncapped, "laswp", 1024, 4, 0) == 0);  // nothing waited before
  rest.waited(0.1);
  CHECK(rest.charge_s(uncapped, "gemm", 1024, 4, 1) == 0);
  CHECK(rest.charge_s(uncapped, "laswp", 1024, 4, 1) == Approx(8e-6));
  CHECK(rest.charge_s(uncapped, "getrf", 1024, 4, 1) == Approx(8e-6));
  CHECK(rest.charge_s(uncapped, "laswp", 1024, 4, 2) == 0);  // no wait over iteration 1
  // Two waits of 0.05 s: the data rested 0.05 s at a time, the longest rest.
  rest.waited(0.05);
  rest.waited(0.05);
  CHECK(rest.charge_s(uncapped, "laswp", 1024, 4, 3) == Approx(4e-6));
  Profile p = sample_profile();
  p.computers[0].page_retouch = r;
  nlohmann::json j = to_json(p);
  CHECK(j["computers"][0]["page_retouch"]["cap_s"] == nlohmann::json{0, 2e-3});
  CHECK(to_json(profile_from_json(j, "p.json")) == j);
  j["computers"][0]["page_retouch"]["cap_s"] = {0};
  CHECK(input_error([&] { profile_from_json(j, "p.json"); }) ==
        "p.json: $.computers[0].page_retouch.cap_s: expected one cap per age, got an array of 1");
}
