// Tests of calibrate/src/profile_builder.cpp: measurement files in, platform profile out.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "synthetic_measurement.hpp"
#include "test_support.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;
using hetperf::testing::synthetic_measurement;
using hetperf::testing::SyntheticOptions;

namespace {

std::filesystem::path temp_dir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("hetperf-calibrate-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

CalibrationInput input(const SyntheticOptions& o) {
  CalibrationInput in;
  in.file = o.machine + ".json";
  in.measurement = synthetic_measurement(o);
  return in;
}

// Writes `j` to dir/name and loads it as a measurement file.
CalibrationInput load(const std::filesystem::path& dir, const std::string& name, const nlohmann::json& j) {
  write_json_file(dir / name, j);
  return load_measurement(dir / name);
}

// The synthetic measurement of a computer "vm" whose memory curve a test fills: no points yet,
// 128 MB of (emulated) main memory.
Measurement vm_with_empty_memory_curve() {
  SyntheticOptions o;
  o.machine = "vm";
  Measurement m = synthetic_measurement(o);
  m.memory->points.clear();
  m.memory->main_memory_mb = 128;
  return m;
}

}  // namespace

TEST_CASE("calibrate: profile builder turns noise-free seed machines into their sextuple and slowdown functions") {
  SyntheticOptions c1;
  c1.machine = "c1";
  c1.hosts = {"c1", "c1"};
  SyntheticOptions c3;
  c3.machine = "c3";
  c3.hosts = {"c3", "c3"};
  c3.mips = 927.55;
  c3.memory = hetperf::testing::kTable5;
  c3.disk_read_bytes_per_s = 41.34 * 1048576;
  c3.disk_write_bytes_per_s = 47.64 * 1048576;
  Calibration cal = calibrate_platform({input(c1), input(c3)}, {"test"});
  const Profile& p = cal.profile;
  REQUIRE(p.computers.size() == 2);
  const Computer& a = p.computers[0];
  CHECK(a.mips == Approx(1145.86));
  CHECK(a.main_memory_mb == 1024);
  CHECK(a.disk_read_bytes_per_s == Approx(76.28 * 1048576));
  REQUIRE(a.slowdown);
  CHECK(a.slowdown->main.a_per_mb == Approx(0.0012));
  REQUIRE(a.slowdown->virtual_memory);
  CHECK(a.slowdown->virtual_memory->d_per_mb == Approx(0.0039).epsilon(1e-6));
  const Computer& b = p.computers[1];
  CHECK(b.main_memory_mb == 256);
  CHECK(b.virtual_memory_mb == 400);
  CHECK(b.slowdown->virtual_memory->c == Approx(0.7335).epsilon(1e-6));
  // lo: the measured 32-byte one-way time (UniMPP paper Table 1).
  CHECK(a.overhead_latency_s == Approx(40e-6 + 32 / 1e9));
  // Kernel models and the integration step.
  REQUIRE(a.kernels.size() == 2);
  CHECK(a.kernels[0].kernel == "dgemm");
  CHECK(a.kernels[0].time_s(100) == Approx(2.5e-10 * 1e6 + 1e-9 * 1e4 + 2e-6).epsilon(1e-6));
  CHECK(a.kernels[1].kernel == "dlaswp");
  REQUIRE(a.integration_step_s);
  CHECK(*a.integration_step_s == Approx(2.5e-8));
  // Both machines measured loopback on their own host: two pairs, and the network over both.
  CHECK(p.network.pairs.size() == 2);
  CHECK(p.network.latency_s == Approx(40e-6).epsilon(1e-6));
  CHECK(p.network.bandwidth_bytes_per_s == Approx(1e9).epsilon(1e-6));
  CHECK(p.network.fit["loggp"]["G_s_per_byte"].get<double>() == Approx(1e-9).epsilon(1e-6));
  CHECK(p.network.fit["loggp"]["o_s"].is_null());
  CHECK(p.warnings.empty());
  // Every fit is recorded: per computer 2 kernels + 2 memory parts, per network fit 1 regime + overall.
  CHECK(cal.fits.size() == 2 * 4 + 3 * 2);
}

TEST_CASE("calibrate: a curve measured in emulated main memory is stretched to the host's memory") {
  SyntheticOptions c1;  // seed Table 2, measured in an emulated 1024 MB main memory
  c1.machine = "c1";
  c1.hosts = {"c1", "c1"};
  CalibrationInput in = input(c1);
  in.measurement.host.memory_bytes = 8ull * 1024 * 1048576;  // the host itself has 8192 MB
  in.measurement.host.swap_bytes = 0;
  Calibration cal = calibrate_platform({in}, {"test"});
  const Computer& c = cal.profile.computers.at(0);
  CHECK(c.main_memory_mb == 8192);
  CHECK(c.virtual_memory_mb == 0);
  REQUIRE(c.slowdown);
  CHECK(c.slowdown->main_memory_mb == Approx(8192));
  // The same occupied fraction gives the same slowdown: 50% and 150% of main memory.
  hetperf::unimpp::SlowdownFunction seed{1024, {0.0012, -0.0065}, hetperf::unimpp::ExponentialSlowdown{0.0938, 0.0039}};
  CHECK(c.alpha(4096) == Approx(seed.alpha(512)).epsilon(1e-6));
  CHECK(c.alpha(12288) == Approx(seed.alpha(1536)).epsilon(1e-6));
  CHECK(c.fits["memory_slowdown"]["scaled_to_host"]["scale"] == Approx(8.0));
}

TEST_CASE("calibrate: profile builder fits each pair of hosts and names groups") {
  SyntheticOptions a;
  a.machine = "a";
  a.hosts = {"a", "b"};
  SyntheticOptions b = a;
  b.machine = "b";
  b.hosts = {"b", "a"};
  b.latency_s = 60e-6;  // the same pair measured twice: pooled per size
  SyntheticOptions c = a;
  c.machine = "c";
  c.hosts = {"c", "a"};
  c.bandwidth_bytes_per_s = 1e8;
  std::vector<CalibrationInput> in = {input(a), input(b), input(c)};
  in[0].group = in[1].group = "fast";
  Profile p = build_profile(in, {"test"});
  REQUIRE(p.network.pairs.size() == 2);
  CHECK(p.network.pairs[0].hosts == std::vector<std::string>{"a", "b"});
  CHECK(p.network.pairs[0].latency_s == Approx(50e-6).epsilon(0.01));
  CHECK(p.network.pairs[1].hosts == std::vector<std::string>{"a", "c"});
  CHECK(p.network.pairs[1].bandwidth_bytes_per_s == Approx(1e8).epsilon(1e-6));
  CHECK(p.computers[0].group == "fast");
  CHECK(p.computers[2].group.empty());
}

TEST_CASE("calibrate: the network's send buffer comes from the ping-pong's timed sends between two hosts") {
  const auto dir = temp_dir("send-buffer");
  SyntheticOptions a;
  a.machine = "a";
  a.hosts = {"a", "b"};
  a.bandwidth_bytes_per_s = 12.5e6;  // a 100 Mbit/s link
  a.send_buffer_bytes = 1e6;
  // Through the measurement file: its send_s samples are what the fit reads.
  const CalibrationInput in = load(dir, "a.json", to_json(synthetic_measurement(a)));
  REQUIRE(in.measurement.net->pingpong.back().send_s);
  Profile p = build_profile({in}, {"test"});
  REQUIRE(p.network.send_buffer);
  CHECK(p.network.send_buffer->bytes == Approx(1e6).epsilon(1e-6));
  CHECK(p.network.send_buffer->fit["source"].get<std::string>().find("send_s") != std::string::npos);
  // A send that always returns at once (everything buffered) tells only B >= s: too few to fit.
  a.send_buffer_bytes = 1e12;
  CHECK_FALSE(build_profile({input(a)}, {"test"}).network.send_buffer);
  // Without timed sends, or on one machine, a large send holds its sender (no send buffer).
  a.send_buffer_bytes = -1;
  CHECK_FALSE(build_profile({input(a)}, {"test"}).network.send_buffer);
  a.send_buffer_bytes = 1e6;
  a.hosts = {"a", "a"};
  CHECK_FALSE(build_profile({input(a)}, {"test"}).network.send_buffer);
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: profile builder warns about a poor fit naming it and its R²") {
  SyntheticOptions o;
  o.machine = "noisy";
  o.relative_noise = 0.6;  // swamps the linear memory slowdown
  o.seed = 2;
  Profile p = build_profile({input(o)}, {"test"});
  bool named = false;
  for (const auto& w : p.warnings)
    named = named ||
            (w.find("poor fit: noisy: memory slowdown") != std::string::npos && w.find("R² ") != std::string::npos);
  CHECK(named);
}

TEST_CASE("calibrate: profile builder finds the knee when the measurement does not know the capacity") {
  SyntheticOptions o;
  o.machine = "c4";
  o.memory = hetperf::testing::kTable6;
  o.memory_capacity_known = false;
  o.relative_noise = 0.01;
  Profile p = build_profile({input(o)}, {"test"});
  const auto& fit = p.computers[0].fits["memory_slowdown"];
  CHECK_THAT(fit["knee_source"].get<std::string>(), Catch::Contains("breakpoint"));
  CHECK(fit["knee_interval_mb"][0].get<double>() == Approx(512));
}

TEST_CASE("calibrate: profile round-trips through its JSON file") {
  SyntheticOptions o;
  o.machine = "c1";
  o.relative_noise = 0.02;
  o.rendezvous_bytes = 65536;
  Profile p = build_profile({input(o)}, {"hetperf calibrate c1.json"});
  p.description = "round trip";
  CHECK(p.network.regimes.size() == 2);
  auto dir = temp_dir("roundtrip");
  write_json_file(dir / "platform.json", to_json(p));
  Profile q = read_profile(dir / "platform.json");
  CHECK(to_json(q) == to_json(p));
  CHECK(q.description == "round trip");
  CHECK(q.computers[0].kernels.size() == p.computers[0].kernels.size());
  CHECK(q.computers[0].kernels[0].coefficients_s == p.computers[0].kernels[0].coefficients_s);
  CHECK(q.network.regimes.size() == 2);
  CHECK(q.network.regimes[1].min_size_bytes == 65536);
  CHECK(q.network.pairs.size() == 1);
  CHECK(q.computers[0].slowdown->virtual_memory->c == p.computers[0].slowdown->virtual_memory->c);
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: profile builder errors name the file and the field") {
  auto dir = temp_dir("errors");
  SyntheticOptions o;
  o.machine = "m";
  nlohmann::json good = to_json(synthetic_measurement(o));

  nlohmann::json schema = good;
  schema["schema"] = "hetperf.measurement/99";
  CHECK_THROWS_WITH(load(dir, "schema.json", schema), Catch::Contains("schema.json") && Catch::Contains("schema"));

  nlohmann::json few = good;
  few["probes"]["net"]["pingpong"] =
      nlohmann::json::array({good["probes"]["net"]["pingpong"][0], good["probes"]["net"]["pingpong"][1]});
  CHECK_THROWS_WITH(build_profile({load(dir, "few.json", few)}, {}),
                    Catch::Contains("few.json: $.probes.net.pingpong") && Catch::Contains("at least 3 points"));

  // A 0-byte ping-pong (the probe's first size) times the latency alone and is accepted; a negative
  // size cannot be written in a measurement file at all.
  nlohmann::json zero = good;
  zero["probes"]["net"]["pingpong"][0]["size_bytes"] = 0;
  CHECK_NOTHROW(build_profile({load(dir, "zero.json", zero)}, {}));
  nlohmann::json negative = good;
  negative["probes"]["net"]["pingpong"][0]["size_bytes"] = -8;
  CHECK_THROWS_WITH(load(dir, "negative.json", negative),
                    Catch::Contains("negative.json: $.probes.net.pingpong[0].size_bytes: expected an integer in [0,"));

  nlohmann::json mem = good;
  mem["probes"]["memory"]["points"] =
      nlohmann::json::array({good["probes"]["memory"]["points"][0], good["probes"]["memory"]["points"][1]});
  CHECK_THROWS_WITH(build_profile({load(dir, "mem.json", mem)}, {}),
                    Catch::Contains("mem.json: $.probes.memory.points") && Catch::Contains("at least 3 points"));

  nlohmann::json kernels = good;
  kernels["probes"]["cpu"]["kernels"] =
      nlohmann::json::array({good["probes"]["cpu"]["kernels"][0], good["probes"]["cpu"]["kernels"][2]});
  // Two block sizes cannot give a three-term kernel model: no model, and a warning naming it (a
  // partial profile; bind() refuses the LU jobs that need the kernel).
  {
    Profile partial = build_profile({load(dir, "kernels.json", kernels)}, {});
    const auto& ks = partial.computers[0].kernels;
    CHECK(std::none_of(ks.begin(), ks.end(), [](const KernelModel& k) { return k.kernel == "dgemm" && k.rows == 0; }));
    CHECK(std::any_of(partial.warnings.begin(), partial.warnings.end(), [](const std::string& w) {
      return w.find("dgemm: 2 block size(s) measured, a model needs 4; no model") != std::string::npos;
    }));
  }

  // A number too large for a double is refused when the file is read, naming the file.
  std::string text = good.dump();
  auto at = text.find("\"mips\":{");
  REQUIRE(at != std::string::npos);
  auto mean = text.find("\"mean\":", at);
  text.insert(mean + 7, "1e999");
  text.erase(mean + 7 + 5, text.find_first_of(",}", mean + 7 + 5) - (mean + 7 + 5));
  {
    std::ofstream f(dir / "overflow.json");
    f << text;
  }
  CHECK_THROWS_WITH(load_measurement(dir / "overflow.json"),
                    Catch::Contains("overflow.json") && Catch::Contains("1e999"));
  // NaN handed over in memory (not through JSON) is refused naming the field.
  CalibrationInput nan = input(o);
  nan.measurement.memory->points[3].slowdown.median = std::nan("");
  CHECK_THROWS_WITH(build_profile({nan}, {}),
                    Catch::Contains("m.json: $.probes.memory.points[3].slowdown.median: expected a finite number"));
  nan = input(o);
  nan.measurement.net->pingpong[2].one_way_s.median = INFINITY;
  CHECK_THROWS_WITH(build_profile({nan}, {}), Catch::Contains("m.json: $.probes.net.pingpong[2].one_way_s.median"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: profile builder reports measured LogGP parameters when the probe recorded them") {
  SyntheticOptions o;
  o.machine = "g";
  CalibrationInput in = input(o);
  LogGPParameters lg;
  lg.small_size_bytes = 8;
  lg.large_size_bytes = 1 << 20;
  lg.send_overhead_s = summarize({2e-6, 2.2e-6, 1.8e-6});
  lg.receive_overhead_s = summarize({3e-6, 3e-6, 3e-6});
  lg.gap_s = summarize({4e-6, 4e-6});
  lg.gap_per_byte_s = 1e-9;
  lg.latency_s = 35e-6;
  in.measurement.net->loggp = lg;
  Profile p = build_profile({in}, {"test"});
  const auto& j = p.network.fit["loggp"];
  CHECK_THAT(j["source"].get<std::string>(), Catch::Contains("measured"));
  CHECK(j["o_s"].get<double>() == Approx(2.5e-6));
  CHECK(j["lo_from_loggp_s"].get<double>() == Approx(2 * 2.5e-6 + 35e-6));
  CHECK(j["g_s"]["value"].get<double>() == Approx(4e-6));
  CHECK(j["G_s_per_byte_from_fit"].get<double>() == Approx(1e-9).epsilon(1e-6));
}

TEST_CASE("calibrate: the net probe's hand-off becomes the computer's, so a probes-only profile has it") {
  SyntheticOptions o;
  o.machine = "h";
  CalibrationInput in = input(o);
  CHECK(build_profile({in}, {}).computers.at(0).oversubscribed_handoff_s == 0);
  in.measurement.net->handoff = HandoffMeasurement{2, 1 << 20, summarize({4e-4}), summarize({12.6e-3}), 4e-3};
  const Computer c = build_profile({in}, {}).computers.at(0);
  CHECK(c.oversubscribed_handoff_s == 4e-3);
  CHECK(c.fits["communication_cpu"]["handoff_s"]["source"] == "$.probes.net.handoff");
  CHECK(c.fits["communication_cpu"]["handoff_s"]["period_at_cores_s"].get<double>() == Approx(4e-4));
}

TEST_CASE("calibrate: the cpu probe's time slice gives time-sliced cores, and the hand-off's slice") {
  SyntheticOptions o;
  o.machine = "h";
  CalibrationInput in = input(o);
  CHECK_FALSE(build_profile({in}, {}).computers.at(0).fits.contains("communication_cpu"));
  TimeSliceMeasurement t;
  t.processes = 3, t.seconds = 1, t.gap_s = summarize({4e-3, 8e-3}), t.slice_s = 4e-3;
  in.measurement.cpu->time_slice = t;
  const Computer c = build_profile({in}, {}).computers.at(0);
  CHECK(c.time_slice_s == 4e-3);
  const nlohmann::json& f = c.fits["communication_cpu"]["time_slice_s"];
  CHECK(f["source"] == "$.probes.cpu.time_slice");
  CHECK(f["slice_s"].get<double>() == 4e-3);
  CHECK(f["applied"] == true);
  CHECK(c.handoff_slice_s == 4e-3);
  CHECK(c.fits["communication_cpu"]["handoff_slice_s"]["source"] == "$.probes.cpu.time_slice");
}

TEST_CASE("calibrate: a probe's figure is the median of its samples, so slow outliers do not move it") {
  SyntheticOptions o;
  o.machine = "noisy";
  CalibrationInput in = input(o);
  // 11 samples of 5000 MIPS of which 3 were slowed by another tenant: mean 4545, median 5000.
  std::vector<double> mips(8, 5000.0);
  mips.insert(mips.end(), {3500, 3000, 3500});
  in.measurement.cpu->mips = summarize(mips);
  std::vector<double> step(9, 12e-9);
  step.insert(step.end(), {30e-9, 38e-9});
  in.measurement.cpu->integration_step_s = summarize(step);
  Profile profile = build_profile({in}, {});
  const Computer& c = profile.computers.at(0);
  CHECK(c.mips == Approx(5000));
  CHECK(c.integration_step_s == Approx(12e-9));
  CHECK(c.fits["mips"]["statistic"] == "median");
  CHECK(c.fits["mips"]["value"].get<double>() == Approx(5000));
  CHECK(c.fits["mips"]["mean"].get<double>() == Approx(in.measurement.cpu->mips.mean));
  // n = 11: the sign-test interval is [x(2), x(10)] of the sorted samples.
  CHECK(c.fits["mips"]["ci95"][0].get<double>() == Approx(3500));
  CHECK(c.fits["mips"]["ci95"][1].get<double>() == Approx(5000));
}

TEST_CASE("calibrate: kernels timed at the LU's shapes get a model of their own, kept by the profile") {
  SyntheticOptions o;
  o.machine = "lu";
  CalibrationInput in = input(o);
  // The probe's --lu-rows 2048: dgemm (2048 − r) x r x r at 3e-10 (2048 − r) r² s.
  for (std::uint64_t r : {32, 64, 128, 256}) {
    const double x = static_cast<double>(r);
    in.measurement.cpu->kernels.push_back({"dgemm", r, 2048, summarize({3e-10 * (2048 - x) * x * x})});
  }
  Profile p = build_profile({in}, {});
  const Computer& c = p.computers.at(0);
  int compact = 0, tall = 0;
  for (const auto& k : c.kernels) {
    if (k.kernel != "dgemm") continue;
    (k.rows == 0 ? compact : tall) += 1;
    if (k.rows == 2048) CHECK(k.time_s(100) == Approx(3e-10 * 1948 * 100 * 100).epsilon(1e-6));
  }
  CHECK(compact == 1);
  CHECK(tall == 1);
  CHECK(c.fits["kernels"].contains("dgemm@2048"));
  Profile back = profile_from_json(to_json(p), "p.json");
  CHECK(back.computers.at(0).kernels.size() == c.kernels.size());
  // Two models of one kernel and shape are refused, naming the field.
  nlohmann::json twice = to_json(p);
  auto& kernels = twice["computers"][0]["kernels"];
  kernels.push_back(kernels[0]);
  CHECK_THROWS_WITH(
      profile_from_json(twice, "p.json"),
      Catch::Contains("p.json: $.computers[0].kernels[" + std::to_string(kernels.size() - 1) + "].rows") &&
          Catch::Contains("one model per kernel and rows"));
}

TEST_CASE("calibrate: a probe of the cpu alone gives a partial profile and bind names what a workload lacks") {
  SyntheticOptions o;
  o.machine = "c1";
  CalibrationInput in = input(o);
  in.measurement.disk.reset();
  in.measurement.net.reset();
  in.measurement.memory.reset();
  Profile p = build_profile({in}, {"hetperf calibrate c1.json"});
  CHECK(p.computers[0].disk_read_bytes_per_s == 0);
  CHECK(p.network.bandwidth_bytes_per_s == 0);
  auto warned = [&](const std::string& what) {
    return std::any_of(p.warnings.begin(), p.warnings.end(),
                       [&](const std::string& w) { return w.find(what) != std::string::npos; });
  };
  CHECK(warned("c1: disk not measured"));
  CHECK(warned("network not measured on any computer"));
  // Written without the figures it lacks, and read back the same.
  nlohmann::json j = to_json(p);
  CHECK_FALSE(j.contains("network"));
  CHECK_FALSE(j["computers"][0].contains("disk_read_bytes_per_s"));
  CHECK_FALSE(j["computers"][0].contains("overhead_latency_s"));
  auto dir = temp_dir("partial");
  write_json_file(dir / "p.json", j);
  Profile q = read_profile(dir / "p.json");
  CHECK(to_json(q) == j);
  // A computing workload binds; one that writes to disk or sends messages is refused by name.
  auto workload = [](const char* process) {
    return workload_from_json(
        nlohmann::json::parse(std::string(R"({"schema": "hetperf.workload/1", "processes": [)") + process + "]}"),
        "w.json");
  };
  CHECK_NOTHROW(bind(workload(R"({"name": "p", "mi": 100})"), q));
  CHECK_THROWS_WITH(
      bind(workload(R"({"name": "p", "mi": 100, "disk_write": {"ops": 1, "bytes_per_op": 1000}})"), q),
      Catch::Contains("$.computers[0].disk_write_bytes_per_s: missing, needed by w.json: $.processes[0].disk_write"));
  CHECK_THROWS_WITH(
      bind(workload(R"({"name": "p", "mi": 100, "messages": {"count": 2, "bytes": 32}})"), q),
      Catch::Contains("$.network.bandwidth_bytes_per_s: missing, needed by w.json: $.processes[0].messages"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: a main-memory line within its points' noise is no poor fit, whatever its R²") {
  Measurement m = vm_with_empty_memory_curve();
  MemoryMeasurement& mem = *m.memory;
  // Each point: 9 rounds spread ±0.1 around a line rising 0.001 per MB (0.12 over the main memory).
  const double spread[] = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1};
  const double offset[] = {0.03, -0.04, 0.02, -0.02, 0.04, -0.03, 0.01, 0.0};
  auto main_point = [&](int i, double scale) {
    const double x = 16.0 + 14 * i;
    std::vector<double> rounds;
    for (double d : spread) rounds.push_back(0.001 * x + offset[i] + scale * d);
    return MemoryPoint{x, summarize(rounds)};
  };
  for (int i = 0; i < 8; ++i) mem.points.push_back(main_point(i, 1));
  for (double v : {131.0, 140.0, 160.0, 180.0, 200.0, 220.0}) {
    mem.points.push_back({v, summarize({200 * (1 - 128 / v), 210 * (1 - 128 / v)})});
  }
  mem.knee_mb = 129;
  CalibrationInput in;
  in.file = "vm.json";
  in.measurement = m;
  Calibration cal = calibrate_platform({in}, {"test"});
  const auto& fits = cal.profile.computers[0].fits["memory_slowdown"];
  CHECK(fits["main_flat"] == false);
  CHECK(fits["main"]["r2"].get<double>() < 0.9);
  REQUIRE(fits.contains("main_lack_of_fit"));
  CHECK(fits["main_lack_of_fit"]["p"].get<double>() >= 0.01);
  for (const auto& w : cal.profile.warnings) CHECK_THAT(w, !Catch::Contains("main memory"));
  // The same medians from rounds a hundred times tighter: the residuals exceed the points' noise.
  for (int i = 0; i < 8; ++i) mem.points[static_cast<std::size_t>(i)] = main_point(i, 0.01);
  in.measurement = m;
  Calibration tight = calibrate_platform({in}, {"test"});
  CHECK(tight.profile.computers[0].fits["memory_slowdown"]["main_lack_of_fit"]["p"].get<double>() < 0.01);
  bool warned = false;
  for (const auto& w : tight.profile.warnings)
    warned = warned || w.find("poor fit: vm: memory slowdown, main memory") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("calibrate: a flat main-memory curve is no poor fit, and a measured swap table is kept and read back") {
  Measurement m = vm_with_empty_memory_curve();
  // The probe's shape on this VM: flat below a 128 MB limit, c·(1 − L/x) beyond it.
  MemoryMeasurement& mem = *m.memory;
  const double noise[] = {0.02, -0.03, 0.01, -0.01, 0.03, -0.02, 0.0, 0.01};
  for (int i = 0; i < 8; ++i) mem.points.push_back({16.0 + 14 * i, summarize({noise[i]})});
  for (double v : {131.0, 140.0, 160.0, 180.0, 200.0, 220.0})
    mem.points.push_back({v, summarize({200 * (1 - 128 / v)})});
  mem.knee_mb = 129;
  CalibrationInput in;
  in.file = "vm.json";
  in.measurement = m;
  Calibration cal = calibrate_platform({in}, {"test"});
  for (const auto& w : cal.profile.warnings) CHECK_THAT(w, !Catch::Contains("memory slowdown"));
  const auto& fits = cal.profile.computers[0].fits["memory_slowdown"];
  CHECK(fits["main_flat"] == true);
  CHECK(fits["swap_form"] == "table");
  CHECK(fits["knee_mb"] == 129);
  auto dir = temp_dir("table");
  write_json_file(dir / "platform.json", to_json(cal.profile));
  Profile q = read_profile(dir / "platform.json");
  REQUIRE(q.computers[0].slowdown);
  CHECK(q.computers[0].slowdown->virtual_table.size() == 6);
  CHECK(q.computers[0].slowdown->form() == cal.profile.computers[0].slowdown->form());
  CHECK(q.computers[0].alpha(500) == Approx(cal.profile.computers[0].alpha(500)));
  // A table out of order, or starting at or below the knee, is refused with its JSON path.
  nlohmann::json bad = to_json(cal.profile);
  auto& points = bad["computers"][0]["slowdown"]["virtual"]["points"];
  std::swap(points[1], points[2]);
  write_json_file(dir / "bad.json", bad);
  CHECK_THROWS_WITH(read_profile(dir / "bad.json"),
                    Catch::Contains("$.computers[0].slowdown.virtual.points[2].occupied_mb") &&
                        Catch::Contains("strictly ascending"));
  bad = to_json(cal.profile);
  bad["computers"][0]["slowdown"]["virtual"]["points"][0]["occupied_mb"] = 1;
  write_json_file(dir / "low.json", bad);
  CHECK_THROWS_WITH(read_profile(dir / "low.json"), Catch::Contains("above knee_mb"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: re-touched pages cost, per page, each gap's pass less the pass at gap 0, never less with age") {
  SyntheticOptions o;
  o.machine = "h";
  CalibrationInput in = input(o);
  CHECK_FALSE(build_profile({in}, {}).computers.at(0).page_retouch);
  // 1000 pages: 10 us at gap 0, 0.5 ms after 10 ms, 0.4 ms after 20 ms (noise), 3 ms after 80 ms.
  in.measurement.cpu->page_retouch = PageRetouchMeasurement{
      1000, 5, {0, 0.01, 0.02, 0.08}, {1e-5, 5e-4, 4e-4, 3e-3}, {{1e-5}, {5e-4}, {4e-4}, {3e-3}}};
  const Computer c = build_profile({in}, {}).computers.at(0);
  CHECK_FALSE(c.page_retouch);  // recorded, not applied
  CHECK(c.fits["page_retouch"]["applied"] == false);
  const nlohmann::json& fit = c.fits["page_retouch"];
  const PageRetouch r{fit["ages_s"], fit["cost_per_page_s"]};
  CHECK_FALSE(fit.contains("cap_s"));
  CHECK(r.ages_s == std::vector<double>{0, 0.01, 0.02, 0.08});
  const std::vector<double>& cost = r.cost_per_page_s;
  REQUIRE(cost.size() == 4);
  CHECK(cost[0] == 0);
  CHECK(cost[1] == Approx(4.9e-7));
  CHECK(cost[2] == Approx(4.9e-7));  // held: a page left longer is not cheaper to touch
  CHECK(cost[3] == Approx(2.99e-6));
  CHECK(fit["source"] == "$.probes.cpu.page_retouch");
  CHECK(fit["pages"] == 1000);
}

TEST_CASE("calibrate: with the large buffer's passes, re-touched pages get their cap and the cost under it") {
  SyntheticOptions o;
  o.machine = "h";
  CalibrationInput in = input(o);
  // 1000 pages: 1 ms more after 80 ms; the large buffer 2 ms more: cap 2 ms, and the cost per page that
  // makes 1000 pages cost 1 ms under it, -2e-3 ln(1 - 1/2) / 1000.
  PageRetouchMeasurement m{1000, 3, {0, 0.08}, {1e-5, 1.01e-3}, {{1e-5}, {1.01e-3}}};
  m.cap_pages = 16384, m.cap_touch_s = {1e-4, 2.1e-3}, m.cap_samples_s = {{1e-4}, {2.1e-3}};
  in.measurement.cpu->page_retouch = m;
  const Computer c = build_profile({in}, {}).computers.at(0);
  const nlohmann::json& fit = c.fits["page_retouch"];
  PageRetouch r{fit["ages_s"], fit["cost_per_page_s"], fit["cap_s"]};
  CHECK(r.cap_s.at(1) == Approx(2e-3));
  CHECK(r.cost_per_page_s.at(1) == Approx(-2e-3 * std::log(0.5) / 1000));
  CHECK(r.charge_s(0.08, 0, 1000) == Approx(1e-3));
  CHECK(c.fits["page_retouch"]["cap_pages"] == 16384);
}

TEST_CASE("calibrate: re-touched pages recorded in the fits are applied on request, checked as the profile's") {
  SyntheticOptions o;
  o.machine = "h";
  CalibrationInput in = input(o);
  in.measurement.cpu->page_retouch = PageRetouchMeasurement{1000, 3, {0, 0.08}, {1e-5, 1.01e-3}, {{1e-5}, {1.01e-3}}};
  Profile p = build_profile({in}, {});
  CHECK_FALSE(p.computers.at(0).page_retouch);
  const nlohmann::json applied = apply_recorded_page_retouch(p);
  REQUIRE(p.computers.at(0).page_retouch);
  CHECK(p.computers.at(0).page_retouch->cost_per_page_s.at(1) == Approx(1e-6));
  CHECK(applied["h"]["cost_per_page_s"][1].get<double>() == Approx(1e-6));
  CHECK(p.computers.at(0).fits["page_retouch"]["applied"] == true);
  p.computers.at(0).fits["page_retouch"]["cost_per_page_s"] = {1e-6, 0};
  p.file = "p.json";
  p.computers.at(0).json_path = "$.computers[0]";
  CHECK(hetperf::test::input_error([&] {
          apply_recorded_page_retouch(p);
        }).find("p.json: $.computers[0].fits.page_retouch.cost_per_page_s") != std::string::npos);
}
