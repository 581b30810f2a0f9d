// Tests of the validation's real runs and their further rounds (validate/src/real_runs.cpp,
// run_order.cpp's affordable), on a launcher that runs nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "hetperf/validate/real_runs.hpp"
#include "hetperf/validate/run_order.hpp"

using namespace hetperf;
using namespace hetperf::validate;

namespace {

ValidationRun lu_run(const std::string& id) {
  ValidationRun r;
  r.id = id;
  r.group = "lu";
  r.job.kind = apps::AppJob::Kind::kLu;
  r.arguments = {"hetperf-lu", "--n", id};
  return r;
}

// Answers every launch with a summary: configuration "steady" always 1.0 s, "noisy" alternately
// 1.0 and 2.0 s (its median never precise), and counts the launches by their arguments.
struct FakeLaunch {
  std::map<std::string, int> launches;  // by the argument after the program
  int noisy = 0;
  nlohmann::json operator()(int, const std::vector<std::string>& args, const std::vector<std::string>&) {
    ++launches[args.at(2)];
    const double s = args.at(2) == "noisy" ? (noisy++ % 2 ? 2.0 : 1.0) : 1.0;
    return {{"summary", {{"factorization_s", s}}}};
  }
};

}  // namespace

TEST_CASE("validate: a time budget takes the imprecise configurations cheapest first") {
  const std::vector<double> cost = {3.0, 1.0, 2.0, 0.5, 1.0};
  // Cheapest first: 3 (0.5), 1 (1.0), 4 (1.0, the later index), 2 (2.0), 0 (3.0); returned in wide's order.
  CHECK(affordable({0, 1, 2, 3, 4}, cost, 2.5) == std::vector<std::size_t>{1, 3, 4});
  CHECK(affordable({0, 1, 2, 3, 4}, cost, 2.4) == std::vector<std::size_t>{1, 3});
  CHECK(affordable({4, 2, 0}, cost, 3.0) == std::vector<std::size_t>{4, 2});  // the order of wide kept
  CHECK(affordable({0, 1, 2, 3, 4}, cost, 100).size() == 5);
  CHECK(affordable({0, 1, 2, 3, 4}, cost, 0.4).empty());
  CHECK(affordable({0, 1}, cost, -1).empty());  // a budget already overspent
  CHECK(affordable({}, cost, 10).empty());
}

TEST_CASE("validate: the real runs: a warm-up, the seeded order, and further rounds over imprecise medians") {
  std::vector<ValidationRun> runs = {lu_run("steady"), lu_run("noisy")};
  const std::vector<CalibrationRun> cal = {{"cal-lu-a", 1, {"hetperf-lu", "--n", "cal"}, "lu n=cal", {}}};
  RealRunsPlan plan;
  plan.repeat = 7, plan.calibration_repeat = 3, plan.max_repeat = 7, plan.seed = 11;
  plan.trace_dir = "traces";
  FakeLaunch fake;
  const Launch launch = [&](int r, const auto& a, const auto& h) { return fake(r, a, h); };

  SECTION("without further rounds") {
    const RealRunsTime t = run_real_runs(plan, runs, cal, launch);
    CHECK(fake.launches["steady"] == 1 + 7);  // the warm-up is the first configuration's
    CHECK(fake.launches["noisy"] == 7);
    CHECK(fake.launches["cal"] == 3);
    CHECK(runs[0].measured_samples_s.size() == 7);
    CHECK(runs[1].measured_samples_s.size() == 7);
    REQUIRE(t.traces.size() == 3);
    CHECK(t.traces.front() == std::filesystem::path("traces/cal-lu-a-1.json"));
    CHECK(t.traces.back() == std::filesystem::path("traces/cal-lu-a-3.json"));
    CHECK(t.further_s == 0);
  }
  SECTION("further rounds go to the noisy configuration alone, up to max_repeat") {
    plan.max_repeat = 12;
    run_real_runs(plan, runs, cal, launch);
    CHECK(runs[0].measured_samples_s.size() == 7);  // its median is exact
    CHECK(runs[1].measured_samples_s.size() == 12);
    CHECK(fake.launches["cal"] >= 3);  // calibration runs in the order's proportion (3 / 14 per run)
  }
  SECTION("a spent budget stops the further rounds") {
    plan.max_repeat = 12;
    plan.further_budget_s = 1e-12;  // less than any launch takes
    const RealRunsTime t = run_real_runs(plan, runs, cal, launch);
    CHECK(runs[1].measured_samples_s.size() == 7);
    CHECK(t.further_s == 0);
  }
  SECTION("the same seed, the same runs") {
    plan.max_repeat = 12;
    run_real_runs(plan, runs, cal, launch);
    std::vector<ValidationRun> again = {lu_run("steady"), lu_run("noisy")};
    FakeLaunch other;
    run_real_runs(plan, again, cal, [&](int r, const auto& a, const auto& h) { return other(r, a, h); });
    CHECK(again[1].measured_samples_s == runs[1].measured_samples_s);
    CHECK(other.launches == fake.launches);
  }
}
