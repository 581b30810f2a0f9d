// Tests for application jobs in a workload ("apps") as simulated runs: the runs built from the bound
// jobs, the kernel times the simulated platform takes from a profile's kernel models, and batch
// application models as tables. The reader's and bind's errors are tested in tests/model.
#include <algorithm>
#include <cmath>
#include <set>

#include <catch2/catch.hpp>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/model/distribution.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "test_support.hpp"

using namespace hetperf;
using namespace hetperf::apps;

namespace {

// Two computers; dgemm takes 1e-9 r³ s, dtrsm 0.5e-9 r³, dgetrf 2e-9 r³ + 1e-6, dlaswp 1e-8 r².
Profile profile(bool kernels = true) {
  Profile p;
  for (const char* name : {"a", "b"}) {
    Computer c;
    c.name = name;
    c.cores = 2;
    c.disk_write_bytes_per_s = 1e8;
    if (kernels) {
      c.kernels = {{"dgemm", 0, {3}, {1e-9}},
                   {"dtrsm", 0, {3}, {0.5e-9}},
                   {"dgetrf", 0, {3, 0}, {2e-9, 1e-6}},
                   {"dlaswp", 0, {2}, {1e-8}}};
      c.integration_step_s = 2e-8;
    }
    p.computers.push_back(c);
  }
  p.network.latency_s = 1e-5;
  p.network.bandwidth_bytes_per_s = 1e9;
  return p;
}

// The application jobs of a workload holding `apps`, bound to `prof`.
std::vector<AppJob> read(const nlohmann::json& apps, const Profile& prof = profile()) {
  Workload w = workload_from_json({{"schema", "hetperf.workload/1"}, {"apps", apps}}, "w.json");
  return app_jobs(w, bind(w, prof));
}

}  // namespace

TEST_CASE("apps: application jobs of a bound workload get their options and mapping") {
  auto jobs = read(nlohmann::json::parse(R"([
    {"name": "lu", "app": "lu", "ranks": 3, "n": 960, "r": 96, "variant": "flow_control", "window": 3,
     "remove": {"ranks": 1, "after_iteration": 4}},
    {"app": "lu", "ranks": 4, "n": 960, "r": 96, "mapping": "block"},
    {"name": "int", "app": "integrate", "instances": 2, "steps": 1000, "disk_bytes": 4096, "mapping": ["b", "b", "a", "a"]}])"));
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].kind == AppJob::Kind::kLu);
  CHECK(jobs[0].lu.variant == LuVariant::kFlowControl);
  CHECK(jobs[0].lu.window == 3);
  CHECK(jobs[0].lu.remove == 1);
  CHECK(jobs[0].lu.remove_after_iteration == 4);
  CHECK(jobs[0].lu.validate(jobs[0].ranks).empty());
  CHECK(jobs[0].mapping == std::vector<std::size_t>{0, 1, 0});  // cyclic by default
  CHECK(jobs[1].name == "lu-1");
  CHECK(jobs[1].mapping == std::vector<std::size_t>{0, 0, 1, 1});
  CHECK(jobs[2].kind == AppJob::Kind::kIntegrate);
  CHECK(jobs[2].instances == 2);
  CHECK(jobs[2].ranks == 2);
  CHECK(jobs[2].integrate.steps == 1000);
  CHECK(jobs[2].integrate.disk_bytes == 4096);
  CHECK(jobs[2].mapping == std::vector<std::size_t>{1, 1, 0, 0});
  CHECK(kernels_needed(jobs) ==
        std::vector<std::string>{"dgemm", "dtrsm", "dgetrf", "dlaswp", "integration", "disk_write"});
}

TEST_CASE("apps: kernel times scale the calibrated r x r models to each call's shape") {
  SimPlatform p = sim_platform_from_profile(profile(), "p.json", {"dgemm", "dtrsm", "dgetrf", "dlaswp", "integration"});
  auto t = [&](const char* kernel, int m, int n, int k, std::uint64_t steps = 0) {
    return p.kernel_time(KernelCall{kernel, m, n, k, steps}, 1);
  };
  CHECK(t("gemm", 100, 100, 100) == Approx(1e-3));      // the model itself at r = 100
  CHECK(t("gemm", 300, 100, 100) == Approx(3e-3));      // three times the rows, three times the flops
  CHECK(t("trsm", 100, 200, 0) == Approx(2 * 0.5e-3));  // two r x r right-hand sides
  // A 300 x 100 panel: (300·100² − 100³/3) / (100·100² − 100³/3) = 4 times the square one.
  CHECK(t("getrf", 300, 100, 0) == Approx(4 * (2e-3 + 1e-6)));
  CHECK(t("laswp", 0, 200, 100) == Approx(2 * 1e-4));  // 200 columns, 100 interchanges
  CHECK(t("integrate", 0, 0, 0, 1000) == Approx(2e-5));
  CHECK(p.computers[0].cores == 2);
  CHECK(p.latency_s == 1e-5);
}

TEST_CASE("apps: kernel models timed at the LU's shapes take over from the compact ones") {
  Profile prof = profile();
  // Timed in a 1000-row matrix: dgemm (1000 − r) x r x r takes 5e-9 r³ (not (1000 − r)/r · 1e-9 r³),
  // dgetrf of the 1000 x r panel 4e-9 r³, dtrsm 0.6e-9 r³, dlaswp 3e-8 r².
  for (auto& c : prof.computers) {
    c.kernels.push_back({"dgemm", 1000, {3}, {5e-9}});
    c.kernels.push_back({"dgetrf", 1000, {3}, {4e-9}});
    c.kernels.push_back({"dtrsm", 1000, {3}, {0.6e-9}});
    c.kernels.push_back({"dlaswp", 1000, {2}, {3e-8}});
  }
  SimPlatform p = sim_platform_from_profile(prof, "p.json", {"dgemm", "dtrsm", "dgetrf", "dlaswp"});
  auto t = [&](const char* kernel, int m, int n, int k) { return p.kernel_time(KernelCall{kernel, m, n, k, 0}, 0); };
  // gemm with r = 100: 1e-3 s at m = 100 (compact), 5e-3 s at m = 900 (LU shape), linear between.
  CHECK(t("gemm", 100, 100, 100) == Approx(1e-3));
  CHECK(t("gemm", 900, 100, 100) == Approx(5e-3));
  CHECK(t("gemm", 500, 100, 100) == Approx(3e-3));
  CHECK(t("gemm", 500, 200, 100) == Approx(6e-3));  // two block columns
  // getrf with r = 100: (2e-3 + 1e-6) s at m = 100, 4e-3 s at m = 1000.
  CHECK(t("getrf", 1000, 100, 0) == Approx(4e-3));
  CHECK(t("getrf", 550, 100, 0) == Approx((2e-3 + 1e-6 + 4e-3) / 2));
  // trsm and laswp take the LU-shape model as it is.
  CHECK(t("trsm", 100, 200, 0) == Approx(2 * 0.6e-3));
  CHECK(t("laswp", 0, 200, 100) == Approx(2 * 3e-4));

  // With the LU-shape models alone, gemm and getrf scale by operation count from their own shape.
  for (auto& c : prof.computers) std::erase_if(c.kernels, [](const KernelModel& k) { return k.rows == 0; });
  SimPlatform q = sim_platform_from_profile(prof, "p.json", {"dgemm", "dtrsm", "dgetrf", "dlaswp"});
  CHECK(q.kernel_time(KernelCall{"gemm", 450, 100, 100, 0}, 0) == Approx(2.5e-3));
  const double ops = 1000.0 * 100 * 100 - 1e6 / 3, half = 550.0 * 100 * 100 - 1e6 / 3;
  CHECK(q.kernel_time(KernelCall{"getrf", 550, 100, 0, 0}, 0) == Approx(4e-3 * half / ops));
}

TEST_CASE("apps: a profile without the kernels a job needs is refused naming the computer") {
  try {
    sim_platform_from_profile(profile(false), "p.json", {"dgemm"});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("p.json: $.computers[0].kernels") && Catch::Contains("no dgemm kernel model"));
  }
}

TEST_CASE("apps: the simulated platform takes the profile's disk and network figures without defaults") {
  Profile prof = profile();
  prof.computers[1].disk_write_bytes_per_s = 0;  // not measured: a profile built in code
  SimPlatform p = sim_platform_from_profile(prof);
  CHECK(p.computers[0].disk_write_bytes_per_s == 1e8);
  CHECK(p.computers[1].disk_write_bytes_per_s == 0);  // never a made-up 100 MB/s
  CHECK(p.bandwidth_bytes_per_s == 1e9);
  CHECK_THAT(hetperf::test::input_error([&] { sim_platform_from_profile(prof, "p.json", {"disk_write"}); }),
             Catch::StartsWith("p.json: $.computers[1].disk_write_bytes_per_s: b has no disk write throughput"));
  prof.network.bandwidth_bytes_per_s = 0;
  CHECK(hetperf::test::input_error([&] { sim_platform_from_profile(prof, "p.json", {}); }) ==
        "p.json: $.network.bandwidth_bytes_per_s: missing, which the application jobs' messages need");
}

TEST_CASE("apps: predicted application jobs report their time and a trace like the real one") {
  Profile prof = profile();
  auto jobs = read(nlohmann::json::parse(R"([
    {"name": "lu", "app": "lu", "ranks": 2, "n": 480, "r": 96},
    {"name": "int", "app": "integrate", "instances": 2, "steps": 1000000, "mapping": ["a", "a", "b", "b"]}])"),
                   prof);
  SimPlatform p = sim_platform_from_profile(prof);
  AppPrediction a = predict_app_jobs(p, prof, jobs, true);
  REQUIRE(a.jobs.size() == 2);
  CHECK(a.jobs[0].time_s > 0);
  CHECK(a.jobs[0].json["iterations"].size() == 5);
  CHECK(a.jobs[0].trace["backend"] == "sim");
  CHECK(a.jobs[0].trace["ranks"].size() == 2);
  // Each instance's worker computes 1e6 steps of 2e-8 s alone on its computer's two cores.
  CHECK(a.jobs[1].time_s == Approx(0.02 + 2 * (1e-5 + 32 / 1e9)).epsilon(1e-6));
  CHECK(a.jobs[1].trace["instance_0_ranks"].size() == 2);
}

TEST_CASE("apps: a batch job's LU or integration model becomes an iteration-time table per processor count") {
  Profile prof = profile();  // two computers of two cores
  auto model = [](const char* text) {
    return hetperf::batch_jobs_from_json(JsonNode(nlohmann::json::parse(text), "w.json", "$.jobs")).front().app.value();
  };
  BatchAppModel lu_model = model(R"([{"processors": 2, "app": {"kind": "lu", "n": 960, "r": 96, "iterations": 3}}])");
  auto lu = app_model_as_table(lu_model, prof, 16);
  CHECK(lu_model.iterations == 3);
  REQUIRE(lu.size() == 4);     // 1 .. 4 cores
  CHECK(lu.at(2) < lu.at(1));  // more ranks, less time per factorisation
  auto in =
      app_model_as_table(model(R"([{"processors": 2, "app": {"kind": "integrate", "steps": 3000000}}])"), prof, 3);
  REQUIRE(in.size() == 2);  // 2 and 3 ranks: one and two workers
  // One worker: 3e6 steps of 2e-8 s; two workers on a second core each: half of it (plus messages).
  CHECK(in.at(2) == Approx(0.06).epsilon(1e-3));
  CHECK(in.at(3) == Approx(0.03).epsilon(1e-2));
}

namespace {

// The profile above with a trace-calibrated gemm model on computer "a" (1e-9 s per m n k alone),
// kernels at 1/3 of their speed alone with two ranks computing, two calibration runs' states and ε of
// 0.8 or 1.25.
Profile profile_with_app_models() {
  Profile p = profile();
  OperationModel m;
  m.op = "gemm";
  m.features = operation_features("gemm");
  m.coefficients_s = {1e-9, 0, 0, 0, 0};
  m.feature_min = {1, 1, 1, 1, 1};
  m.feature_max = {1e12, 1e12, 1e12, 1e12, 1};
  m.calls = 10;
  m.residuals = {{1.0, {0.8, 1.25}}};
  p.computers[0].app_models.operations.push_back(m);
  p.computers[0].app_models.concurrency_speed = {1.0, 1.0 / 3};
  p.computers[0].app_models.runs = {{"x", {{"gemm", 0.9}}}, {"y", {{"gemm", 1.2}}}};
  return p;
}

}  // namespace

TEST_CASE(
    "apps: a computer's trace-calibrated models give its kernel times alone, slowed by the ranks computing beside") {
  const Profile p = profile_with_app_models();
  SimPlatform platform = sim_platform_from_profile(p);
  KernelCall one{"gemm", 100, 100, 100, 0};
  CHECK(platform.kernel_time(one, 0) == Approx(1e-9 * 1e6));  // a's model, alone
  KernelCall two = one;
  two.colocated = 2;
  CHECK(platform.kernel_time(two, 0) == Approx(1e-9 * 1e6));  // not keyed by the configuration
  CHECK(platform.kernel_time(one, 1) == Approx(1e-9 * 1e6));  // b: its r x r models
  // The processor slows them by the ranks computing at once: a's trace speeds.
  CHECK(platform.computers[0].concurrency_speed == std::vector<double>{1.0, 1.0 / 3});
  AppJob job;
  job.kind = AppJob::Kind::kLu;
  job.ranks = 2;
  job.lu.n = 960, job.lu.r = 96;
  job.mapping = {0, 0};
  Profile slow = p;
  const double contended = predict_app_jobs(platform, p, {job}, false).jobs.front().time_s;
  slow.computers[0].app_models.concurrency_speed = {1.0, 1.0};
  const double free = predict_app_jobs(sim_platform_from_profile(slow), slow, {job}, false).jobs.front().time_s;
  CHECK(contended > 1.5 * free);
  CHECK(platform.model_warnings->empty());
  KernelCall huge{"gemm", 100000, 100000, 100000, 0};
  platform.kernel_time(huge, 0);
  CHECK(platform.model_warnings->size() == 1);
}

TEST_CASE("apps: a computer's time between calls follows every compute call, a panel's copy takes its model") {
  Profile p = profile_with_app_models();
  p.computers[0].app_models.call_gap_s = 2e-6;
  OperationModel pack;
  pack.op = "pack", pack.features = operation_features("pack"), pack.coefficients_s = {1e-9, 1e-6};
  pack.feature_min = {1, 1}, pack.feature_max = {1e12, 1};
  p.computers[0].app_models.operations.push_back(pack);
  const SimPlatform platform = sim_platform_from_profile(p);
  CHECK(platform.kernel_time({"gemm", 100, 100, 100, 0}, 0) == Approx(1e-9 * 1e6 + 2e-6));
  CHECK(platform.kernel_time({"pack", 1000, 100, 0, 0}, 0) == Approx(1e-9 * 1e5 + 1e-6 + 2e-6));
  // Computer b has neither: no micro-benchmark times a copy.
  CHECK(platform.kernel_time({"pack", 1000, 100, 0, 0}, 1) == 0);
  // LU copies each panel it factors before it sends it, also on one rank with no one to send it to.
  AppJob job;
  job.kind = AppJob::Kind::kLu;
  job.ranks = 1, job.lu.n = 960, job.lu.r = 96, job.mapping = {0};
  p.computers[0].app_models.call_gap_s = 0;
  const double without = predict_app_jobs(sim_platform_from_profile(p), p, {job}, false).jobs.front().time_s;
  p.computers[0].app_models.call_gap_s = 2e-6;
  const double with = predict_app_jobs(sim_platform_from_profile(p), p, {job}, false).jobs.front().time_s;
  CHECK(with > without);
}

TEST_CASE("apps: sampled predictions draw run states and residuals, the same on any number of threads") {
  const Profile p = profile_with_app_models();
  auto jobs = read(nlohmann::json::parse(R"([{"name": "lu", "app": "lu", "ranks": 2, "n": 960, "r": 96,
                                              "mapping": ["a", "a"]}])"),
                   p);
  SampledAppJobs one = sample_app_jobs(p, jobs, 40, 7, 1);
  SampledAppJobs two = sample_app_jobs(p, jobs, 40, 7, 2);
  CHECK(one.time_s == two.time_s);
  CHECK(sample_app_jobs(p, jobs, 10, 20, 7, 2).time_s.front() ==
        std::vector<double>(one.time_s.front().begin() + 10, one.time_s.front().begin() + 30));
  CHECK(sample_app_jobs(p, jobs, 40, 8, 1).time_s != one.time_s);
  const double point = predict_app_jobs(sim_platform_from_profile(p), p, jobs, false).jobs.front().time_s;
  const auto& s = one.time_s.front();
  const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
  CHECK(*lo < *hi);  // the samples differ
  CHECK(*lo > 0.5 * point);
  CHECK(*hi < 2 * point);
  const nlohmann::json d = distribution_json(s);
  CHECK(d["p5"].get<double>() <= d["median"].get<double>());
  CHECK(d["median"].get<double>() <= d["p95"].get<double>());
  CHECK(d["samples"].size() == 40);
}

TEST_CASE("apps: a message between ranks of one computer takes its calibrated line, the hand-off is the world's") {
  Profile p = profile();
  Computer& a = p.computers[0];
  a.cores = 1;
  a.oversubscribed_handoff_s = 5e-3;
  MessageModel alone;  // measured with one rank per core
  alone.latency_s = 1e-3, alone.seconds_per_byte = 1e-9;
  a.app_models.messages = alone;
  SimPlatform platform = sim_platform_from_profile(p);
  REQUIRE(platform.computers[0].local_message_s);
  CHECK(platform.computers[0].local_message_s(1000, 1) == Approx(1e-3 + 1e-6));
  CHECK(platform.computers[0].local_message_s(1000, 2) == Approx(1e-3 + 1e-6));
  // The hand-off: twice the calibrated one times the chance the receiver is off its core.
  CHECK(platform.computers[0].handoff_at(1) == 0);
  CHECK(platform.computers[0].handoff_at(2) == Approx(5e-3));
  CHECK(platform.computers[0].handoff_at(4) == Approx(2 * 5e-3 * 0.75));
  CHECK(!platform.computers[1].local_message_s);  // no traces there: the star network
}

TEST_CASE(
    "apps: calibration runs give diagnostics by the mechanisms alone and the spread of what they miss, never a "
    "factor") {
  const Profile base = profile();
  const hetperf::test::TempDir dir("diagnostics");
  auto lu = [&](const std::string& file, int n, const std::vector<std::string>& hosts, double seconds) {
    nlohmann::json t = {{"schema", "hetperf.trace/1"},
                        {"app", "lu"},
                        {"backend", "mpi"},
                        {"config", {{"n", n}, {"r", 96}, {"variant", "basic"}}},
                        {"summary", {{"factorization_s", seconds}}},
                        {"run", {{"ranks", hosts.size()}, {"host", hosts[0]}, {"rank_hosts", hosts}}}};
    return dir.write(file, t.dump());
  };
  auto point = [&](int n, const std::vector<std::size_t>& mapping) {
    AppJob job;
    job.kind = AppJob::Kind::kLu;
    job.ranks = static_cast<int>(mapping.size());
    job.lu.n = n, job.lu.r = 96;
    job.mapping = mapping;
    return predict_app_jobs(sim_platform_from_profile(base), base, {job}, false).jobs.front().time_s;
  };
  const double ab = point(960, {0, 1}), aa = point(960, {0, 0});
  const std::vector<std::filesystem::path> traces = {lu("t1.json", 960, {"a", "b"}, 1.10 * ab),
                                                     lu("t2.json", 960, {"a", "b"}, 1.20 * ab),
                                                     lu("t3.json", 960, {"a", "a"}, 0.9 * aa)};
  const auto d = calibration_diagnostics(base, traces);
  REQUIRE(d.size() == 3);
  CHECK(d[0].ratio() == Approx(1.10));
  CHECK(d[0].rank_computers == std::vector<std::string>{"a", "b"});
  CHECK(d[2].ratio() == Approx(0.9));
  CHECK(d[0].configuration == "lu n=960 r=96 basic");
  Profile p = base;
  record_diagnostics(p, d);
  REQUIRE(p.diagnostics["calibration_runs"].size() == 3);
  // a's configurations: (a, b) at the median of its runs' logs, ln √(1.10 · 1.20), and (a, a) at ln 0.9,
  // centred on their median and scaled by the model's share of their spread: two configurations 24% apart
  // against runs 9% apart, most of it the model's.
  const auto& e = p.computers[0].app_models.model_error_log.at("lu");
  REQUIRE(e.size() == 2);
  const double shrink = p.diagnostics["model_error"]["a"]["lu"]["shrink"].get<double>();
  CHECK(shrink > 0.9);
  CHECK(shrink < 1);
  CHECK(e[1] - e[0] == Approx(shrink * std::log(std::sqrt(1.10 * 1.20) / 0.9)));
  CHECK(e[0] + e[1] == Approx(0).margin(1e-12));
  CHECK(diagnostics_report(d).size() == 2);
  // A host that is not a computer of the profile, and a list of hosts that is not one per rank.
  const auto elsewhere = lu("t6.json", 960, {"a", "c"}, 1);
  CHECK(hetperf::test::input_error([&] {
          calibration_diagnostics(base, {elsewhere});
        }).find("t6.json: $.run.rank_hosts[1]: expected the name of a computer of the profile, got \"c\"") !=
        std::string::npos);
  const auto short_list =
      dir.write("t7.json", R"({"app": "lu", "config": {"n": 960, "r": 96}, "summary": {"factorization_s": 1},
                                                   "run": {"ranks": 2, "rank_hosts": ["a", "b", "a"]}})");
  CHECK(hetperf::test::input_error([&] {
          calibration_diagnostics(base, {short_list});
        }).find("$.run.rank_hosts: expected one host per rank (2)") != std::string::npos);
  // The prediction never applies them: without operation noise, every sample is the point.
  auto jobs = read(
      nlohmann::json::parse(R"([{"name": "ab", "app": "lu", "ranks": 2, "n": 960, "r": 96, "mapping": ["a", "b"]}])"),
      p);
  const double alone = predict_app_jobs(sim_platform_from_profile(p), p, jobs, false).jobs[0].time_s;
  p.computers[0].app_models.model_error_log.clear();
  p.computers[1].app_models.model_error_log.clear();
  const SampledAppJobs sampled = sample_app_jobs(p, jobs, 5, 3, 1);
  for (double t : sampled.time_s[0]) CHECK(t == Approx(alone));
}

TEST_CASE("apps: the model error's spread leaves out the noise of the configurations' medians") {
  // 1000 configurations of 3 runs each: run noise of sd 0.1 (a right-skewed law: a slow run in ten
  // takes 30% more), with and without a configuration-level error of sd 0.1.
  Rng rng(42);
  auto runs = [&](double config_sd) {
    std::vector<std::vector<double>> out;
    for (int c = 0; c < 1000; ++c) {
      const double offset = config_sd * rng.normal();
      std::vector<double> r;
      for (int k = 0; k < 3; ++k)
        r.push_back(offset + 0.05 * rng.normal() + (rng.uniform01() < 0.1 ? std::log(1.3) : 0.0));
      out.push_back(r);
    }
    return out;
  };
  // All of the spread the medians' noise (their variance 0.0028 in 10^5 draws of this law): the
  // estimate matches the observed variance, and little of the spread is left. (The shrink is the root
  // of a difference near 0, so it is not itself near 0.)
  const ModelErrorSpread noise_only = model_error_spread(runs(0));
  INFO("observed " << noise_only.observed_variance << ", noise " << noise_only.noise_variance);
  CHECK(noise_only.noise_variance == Approx(0.0028).epsilon(0.25));
  CHECK(noise_only.observed_variance == Approx(0.0028).epsilon(0.25));
  CHECK(noise_only.shrink < 0.5);
  const ModelErrorSpread model = model_error_spread(runs(0.1));
  CHECK(model.shrink > 0.85);
  CHECK(model.shrink < 1);
  // The model's share of the variance: observed less noise, the configurations' sd of 0.1.
  CHECK(std::sqrt(model.observed_variance - model.noise_variance) == Approx(0.1).epsilon(0.2));
  // Sixteen configurations, as a calibration has: their variance is uncertain, and its upper bound lies
  // well above it.
  const auto few_runs = runs(0);
  const ModelErrorSpread few =
      model_error_spread(std::vector<std::vector<double>>(few_runs.begin(), few_runs.begin() + 16));
  CHECK(few.observed_variance_upper > 1.2 * few.observed_variance);
  // One run per configuration: no noise known, nothing taken away.
  CHECK(model_error_spread({{0.1}, {-0.1}, {0.2}}).shrink == 1);
  CHECK(model_error_spread({}).shrink == 1);
  // Deterministic: the resamples have a seed of their own.
  const auto again = runs(0.1);
  CHECK(model_error_spread(again).shrink == model_error_spread(again).shrink);
}

TEST_CASE("apps: a sampled prediction's typical time is its simulations' before the model error is drawn") {
  Profile p = profile();
  p.computers[0].app_models.calibrated = {{1, 2}, {{"lu", {960, 1920}}}, {"basic"}, {}};
  p.computers[0].app_models.model_error_log = {{"lu", {-0.1, 0, 0.2}}};
  AppJob j;
  j.kind = AppJob::Kind::kLu;
  j.ranks = 2;
  j.lu.n = 960, j.lu.r = 96;
  j.mapping.assign(2, 0);
  const double point = predict_app_jobs(sim_platform_from_profile(p), p, {j}, false).jobs.front().time_s;
  const SampledAppJobs s = sample_app_jobs(p, {j}, 50, 3, 1);
  // No run states or residuals in this profile: every simulation is the point, the model error spreads
  // the samples.
  for (double t : s.typical_s[0]) CHECK(t == Approx(point));
  const auto [lo, hi] = std::minmax_element(s.time_s[0].begin(), s.time_s[0].end());
  CHECK(*lo < 0.95 * point);
  CHECK(*hi > 1.1 * point);
}

TEST_CASE("apps: a prediction's spread grows with its distance from the calibrated range") {
  Profile p = profile();
  p.computers[0].app_models.calibrated = {{1, 2}, {{"lu", {960, 1920}}}, {"basic"}, {}};
  p.computers[0].app_models.model_error_log = {{"lu", {-0.05, 0, 0.05}}};
  auto job = [&](int ranks, int n) {
    AppJob j;
    j.kind = AppJob::Kind::kLu;
    j.ranks = ranks;
    j.lu.n = n, j.lu.r = 96;
    j.mapping.assign(static_cast<std::size_t>(ranks), 0);
    return j;
  };
  CHECK(extrapolation_distance(p, job(2, 960)) == 0);
  CHECK(extrapolation_distance(p, job(4, 960)) == Approx(1));
  CHECK(extrapolation_distance(p, job(2, 3840)) == Approx(1));
  CHECK(extrapolation_distance(p, job(4, 3840)) == Approx(2));
  auto spread = [&](const AppJob& j) {
    const auto s = sample_app_jobs(p, {j}, 200, 5, 1).time_s[0];
    const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    return *hi / *lo;
  };
  // e is drawn between -0.05 and 0.05 (interpolated): 200 draws come near both ends. The same draws
  // (one seed) two octaves out spread three times as far in log.
  const double near = std::log(spread(job(2, 960))), far = std::log(spread(job(4, 3840)));
  CHECK(near <= 0.1 + 1e-12);
  CHECK(near >= 0.09);
  CHECK(far == Approx(3 * near).epsilon(1e-9));
}

TEST_CASE("apps: a sampled median is not pulled to one side of an even number of calibrated deviations") {
  Profile p = profile();
  p.computers[0].app_models.calibrated = {{1, 2}, {{"lu", {960, 1920}}}, {"basic"}, {}};
  p.computers[0].app_models.model_error_log = {{"lu", {-0.1, 0.1}}};  // two configurations, centred
  AppJob j;
  j.kind = AppJob::Kind::kLu;
  j.ranks = 2;
  j.lu.n = 960, j.lu.r = 96;
  j.mapping.assign(2, 0);
  std::vector<double> s = sample_app_jobs(p, {j}, 201, 11, 1).time_s[0];
  const double lo = *std::min_element(s.begin(), s.end()), hi = *std::max_element(s.begin(), s.end());
  std::nth_element(s.begin(), s.begin() + 100, s.end());
  // Drawn as two values, the median was one of them: e^{±0.1} of the centre, 10% off either way.
  CHECK(s[100] / std::sqrt(lo * hi) == Approx(1).margin(0.03));
}
