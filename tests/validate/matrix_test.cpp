// Tests of the validation matrix and its accuracy figures (validate/src/matrix.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hetperf/model/statistics.hpp"
#include "hetperf/validate/matrix.hpp"
#include "hetperf/validate/reports.hpp"
#include "hetperf/validate/run_order.hpp"
#include "hetperf/validate/statistics.hpp"

using namespace hetperf;
using namespace hetperf::apps;
using namespace hetperf::validate;

namespace {

ValidationRun run(const std::string& id, double measured, double predicted) {
  ValidationRun r;
  r.id = id;
  r.group = "lu";
  r.measured_s = measured;
  r.predicted_s = predicted;
  r.measured_samples_s = {measured};
  return r;
}

Profile one_computer() {
  Profile p;
  Computer c;
  c.name = "here";
  c.cores = 2;
  p.computers.push_back(c);
  return p;
}

// A computer calibrated as calibration_matrix calibrates it on 2 cores: LU basic on 1 and 2 ranks
// at `sizes`' calibrated sizes, one integration instance of 10⁶ and 4·10⁶ steps.
Profile calibrated_profile(const LuSizes& sizes) {
  Profile p = one_computer();
  p.computers[0].app_models.calibrated = {
      {1, 2}, {{"lu", {sizes.calibrated.front(), sizes.calibrated.back()}}, {"integrate", {1e6, 4e6}}}, {"basic"}, {}};
  return p;
}

}  // namespace

TEST_CASE("validate: validation accuracy counts the runs within 5% and 10% of the measured time") {
  std::vector<ValidationRun> runs = {run("a", 1.0, 1.04), run("b", 1.0, 0.96), run("c", 2.0, 2.15), run("d", 1.0, 1.3)};
  CHECK(runs[0].error() == Approx(0.04));
  CHECK(runs[3].error() == Approx(0.3));
  Accuracy a = accuracy(runs);
  CHECK(a.runs == 4);
  CHECK(a.within_5 == Approx(0.5));  // a and b
  CHECK(a.within_10 == Approx(0.75));
  CHECK(a.max_abs_error == Approx(0.3));
  CHECK(a.worst_run == "d");
  CHECK(a.mean_abs_error == Approx((0.04 + 0.04 + 0.075 + 0.3) / 4));
  CHECK(accuracy({}).runs == 0);
}

TEST_CASE("validate: validation reports the noise floor of the repeats") {
  std::vector<ValidationRun> runs = {run("a", 1.0, 1.0), run("b", 2.0, 2.0), run("c", 1.0, 1.0)};
  runs[0].measured_samples_s = {0.9, 1.0, 1.2};   // spread 0.3
  runs[1].measured_samples_s = {1.92, 2.0, 2.1};  // spread 0.09: within ±5%
  runs[2].measured_samples_s = {1.0, 1.0, 1.04};  // spread 0.04
  CHECK(runs[0].spread() == Approx(0.3));
  Accuracy a = accuracy(runs);
  CHECK(a.median_spread == Approx(0.09));
  CHECK(a.spread_over_10 == Approx(1.0 / 3));
  CHECK(run("single", 1.0, 1.0).spread() == 0);
}

TEST_CASE("validate: the full validation matrix has at least 60 runs of both apps, quick a few") {
  ValidationMatrixOptions o;
  o.cores = 2, o.lu_program = "lu", o.integrate_program = "int", o.scratch = "/tmp";
  auto full = validation_matrix(o, one_computer());
  CHECK(full.size() >= 60);
  std::map<std::string, int> groups;
  for (const auto& r : full) {
    groups[r.group]++;
    CHECK(r.job.mapping.size() == static_cast<std::size_t>(r.ranks));
    if (r.job.kind == AppJob::Kind::kLu) CHECK(r.job.lu.validate(r.ranks).empty());
  }
  // r 64, 128, 256 x 3 variants x (n 3072, 4096 on 1, 2, 3, 4 ranks and n 1536, 2048 on 3, 4 ranks,
  // and on 1, 2 ranks in the variants not calibrated): 3 x (12 + 16 + 16).
  CHECK(groups["lu"] == 132);
  // The calibration's configurations afresh: LU basic, r 64, 128, 256 x n 1536, 2048 x 1, 2 ranks;
  // one integration instance without and with the load.
  CHECK(groups["calibrated"] == 14);
  CHECK(groups["lu-removal"] == 4);
  CHECK(groups["integrate"] == 10);  // 10, 20, ..., 100 processes
  o.quick = true;
  auto quick = validation_matrix(o, one_computer());
  CHECK(quick.size() < 20);
  o.computer = "elsewhere";
  CHECK_THROWS_WITH(validation_matrix(o, one_computer()), Catch::Contains("'elsewhere' is not in the profile"));
}

TEST_CASE("validate: the validation CSV has one row per run with its error") {
  ValidationMatrixOptions o;
  o.quick = true, o.cores = 2;
  auto runs = validation_matrix(o, one_computer());
  runs[0].measured_s = 2, runs[0].predicted_s = 1.8, runs[0].measured_samples_s = {2};
  std::string csv = validation_csv(runs);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(runs.size() + 1));
  CHECK_THAT(csv, Catch::Contains(runs[0].id + ",lu,lu,1,3072,128,basic,0,-1,,,,,2,1.8,-0.09999999999999998,2"));
  CHECK(validation_pictures(runs).size() == 5);  // and the distributions of the one measured group
  CHECK_THAT(validation_markdown(runs, "hetperf validate --quick", nlohmann::json::object()),
             Catch::Contains("hetperf validate --quick"));
}

TEST_CASE("validate: the pictures are GnuplotScripts drawing into the file they are given") {
  ValidationMatrixOptions o;
  o.quick = true, o.cores = 2;
  auto runs = validation_matrix(o, one_computer());
  for (auto& r : runs) r.measured_s = 2, r.predicted_s = 1.8, r.measured_samples_s = {2};
  runs[0].group = "it's \"odd\"";  // a title gnuplot must see quoted
  const auto pictures = validation_pictures(runs);
  REQUIRE(pictures.size() == 9);  // 4, and one box plot per group (5 groups)
  CHECK(pictures[0].file == "errors-histogram.png");
  CHECK(pictures[4].file == "distributions-integrate.png");
  CHECK_THAT(pictures[8].body, Catch::Contains("with candlesticks"));
  const std::string script = pictures[1].script(".measured-vs-predicted.png.tmp");
  CHECK_THAT(script, Catch::StartsWith("set terminal pngcairo size 900,600"));
  CHECK_THAT(script, Catch::Contains("set output \".measured-vs-predicted.png.tmp\"\n"));
  CHECK_THAT(script, Catch::Contains("title \"it's \\\"odd\\\"\""));
  CHECK_THAT(script, Catch::Contains("$g0 << EOD\n2 1.8\n"));
}

TEST_CASE("validate: the run order interleaves every configuration's repeats, the same for a seed") {
  const auto order = run_order(5, 7, 42);
  REQUIRE(order.size() == 35);
  std::vector<int> count(5, 0);
  for (auto c : order) ++count[c];
  CHECK(count == std::vector<int>(5, 7));
  CHECK(order == run_order(5, 7, 42));
  CHECK(order != run_order(5, 7, 43));
  CHECK(run_order(std::vector<int>(5, 7), 42) == order);
  // Unequal repeats: each configuration as often as asked, interleaved.
  const auto mixed = run_order({3, 7, 0, 1}, 42);
  CHECK(mixed.size() == 11);
  CHECK(std::count(mixed.begin(), mixed.end(), 0u) == 3);
  CHECK(std::count(mixed.begin(), mixed.end(), 1u) == 7);
  CHECK(std::count(mixed.begin(), mixed.end(), 2u) == 0);
  CHECK(std::count(mixed.begin(), mixed.end(), 3u) == 1);
  // Not back to back: the first seven runs are not all of one configuration.
  CHECK(std::count(order.begin(), order.begin() + 7, order.front()) < 7);
}

TEST_CASE("validate: the statistics separate bias, the shares of medians, coverage and the noise floor") {
  auto config = [](const std::string& group, std::vector<double> samples, double predicted, double p10, double p90) {
    ValidationRun r;
    r.id = group + std::to_string(predicted);
    r.group = group;
    r.measured_samples_s = samples;
    r.measured_s = hetperf::median(samples);
    r.predicted_s = predicted, r.predicted_p10_s = p10, r.predicted_p90_s = p90;
    return r;
  };
  // Medians 1.0 each; predicted +3%, −8%, +20%; intervals holding 3, 2 and 0 of the 3 runs.
  std::vector<ValidationRun> runs = {config("a", {0.9, 1.0, 1.1}, 1.03, 0.85, 1.15),
                                     config("a", {0.95, 1.0, 1.2}, 0.92, 0.9, 1.1),
                                     config("b", {0.98, 1.0, 1.02}, 1.20, 1.1, 1.3)};
  Statistics s = statistics(runs, 1, 500);
  CHECK(s.configurations == 3);
  CHECK(s.runs == 9);
  CHECK(s.bias == Approx(0.03));
  CHECK(s.bias_low <= s.bias);
  CHECK(s.bias_high >= s.bias);
  CHECK(s.bias_low >= -0.08 - 1e-12);
  CHECK(s.bias_high <= 0.20 + 1e-12);
  CHECK(s.within_5 == Approx(1.0 / 3));
  CHECK(s.within_10 == Approx(2.0 / 3));
  CHECK(s.coverage == Approx(5.0 / 9));
  CHECK(s.median_width == Approx(0.2 / 0.92));  // widths 0.291, 0.217, 0.167
  CHECK(s.noise_floor == Approx(0.05));         // median |x − m| / m: 0.1, 0.05, 0.02
  CHECK(statistics({}).configurations == 0);
}

TEST_CASE(
    "validate: the LU sizes follow the last-level cache: calibrated out of it, validated up to twice the largest") {
  const LuSizes s = lu_sizes(false, 8 << 20);  // 8 MiB: n = 1536 is the smallest multiple of 512 with 8 n² >= 16 MiB
  CHECK(s.calibrated == std::vector<int>{1536, 2048});
  CHECK(s.validated == std::vector<int>{3072, 4096});
  CHECK(lu_sizes(true, 8 << 20).validated == std::vector<int>{3072});
  CHECK(lu_sizes(false, 32u << 20).calibrated == std::vector<int>{3072, 3584});
  CHECK(validation_lu_rows(false, 8 << 20) == 4096);
}

TEST_CASE(
    "validate: every validated configuration differs from every calibration one along a named axis, but the calibrated "
    "group") {
  ValidationMatrixOptions o;
  o.cores = 2;
  o.lu_program = "lu", o.integrate_program = "int", o.scratch = "/tmp";
  for (bool quick : {true, false}) {
    o.quick = quick;
    const auto cal = calibration_matrix(o);
    const auto runs = validation_matrix(o, one_computer());
    REQUIRE_FALSE(cal.empty());
    const LuSizes sizes = lu_sizes(quick, o.cache_bytes);
    // The budget: LU basic on 1 and C ranks at two sizes; one integration instance.
    for (const auto& c : cal) {
      const auto& a = c.arguments;
      if (a[0] == "lu") {
        CHECK((c.ranks == 1 || c.ranks == o.cores));
        CHECK(std::find(a.begin(), a.end(), "--variant") == a.end());
        CHECK(std::count(sizes.calibrated.begin(), sizes.calibrated.end(), std::stoi(a[2])) == 1);
      } else {
        CHECK(c.ranks == 2);
      }
    }
    for (const auto& r : runs) {
      if (r.group == "calibrated") {
        CHECK_FALSE(quick);
        // The calibration's own configurations, run afresh: in the calibrated regime.
        CHECK(held_out_axes(r, calibrated_profile(sizes)).empty());
        continue;
      }
      if (r.job.kind == AppJob::Kind::kIntegrate) {
        CHECK(r.job.instances > 1);  // a rank count never calibrated
        continue;
      }
      const bool ranks = r.ranks != 1 && r.ranks != o.cores;
      const bool size = std::count(sizes.calibrated.begin(), sizes.calibrated.end(), r.job.lu.n) == 0;
      const bool variant = r.job.lu.variant != LuVariant::kBasic;
      CHECK((ranks || size || variant));
    }
  }
}

TEST_CASE("validate: a run's held-out axes come from its computer's calibrated range") {
  Profile p = one_computer();
  p.computers[0].app_models.calibrated = {{1, 2}, {{"lu", {1536, 2048}}, {"integrate", {1e6, 4e6}}}, {"basic"}, {}};
  auto lu = [&](int ranks, int n, LuVariant v) {
    ValidationRun r;
    r.job.kind = AppJob::Kind::kLu;
    r.job.ranks = ranks;
    r.job.lu.n = n, r.job.lu.variant = v;
    r.job.mapping.assign(static_cast<std::size_t>(ranks), 0);
    return r;
  };
  CHECK(held_out_axes(lu(2, 2048, LuVariant::kBasic), p).empty());
  CHECK(held_out_axes(lu(3, 2048, LuVariant::kBasic), p) == std::vector<std::string>{"ranks"});
  CHECK(held_out_axes(lu(1, 4096, LuVariant::kPipelined), p) == std::vector<std::string>{"size", "variant"});
  ValidationRun i;
  i.job.kind = AppJob::Kind::kIntegrate;
  i.job.instances = 10, i.job.ranks = 2, i.job.integrate.steps = 2'000'000;
  i.job.mapping.assign(20, 0);
  CHECK(held_out_axes(i, p) == std::vector<std::string>{"ranks"});
  CHECK(held_out_axes(lu(3, 2048, LuVariant::kBasic), one_computer()).empty());  // nothing calibrated: no axis
  std::vector<ValidationRun> runs = {lu(2, 2048, LuVariant::kBasic), lu(3, 2048, LuVariant::kBasic)};
  for (auto& r : runs) {
    r.axes = held_out_axes(r, p);
    r.measured_samples_s = {1.0, 1.1, 0.9};
    r.measured_s = 1.0, r.predicted_s = 1.02, r.predicted_p10_s = 0.9, r.predicted_p90_s = 1.1;
  }
  const auto by_axis = axis_statistics(runs);
  REQUIRE(by_axis.size() == 2);
  CHECK(by_axis.at("calibrated regime").configurations == 1);
  CHECK(by_axis.at("ranks").configurations == 1);
}

TEST_CASE("validate: the testbed matrix runs across both computers, with the mappings, removals and workers it names") {
  Profile p;
  for (const char* name : {"fast", "slow"}) {
    Computer c;
    c.name = name;
    c.cores = 1;
    p.computers.push_back(c);
  }
  ValidationMatrixOptions o;
  o.lu_program = "lu", o.integrate_program = "int", o.scratch = "/tmp";
  for (bool quick : {false, true}) {
    o.quick = quick;
    const auto runs = testbed_matrix(o, p, "fast", "slow");
    CHECK(runs.size() >= (quick ? 8u : 20u));  // at least 20 configurations
    std::set<std::string> ids, groups;
    bool cyclic = false, block = false;
    for (const auto& r : runs) {
      CHECK(ids.insert(r.id).second);
      groups.insert(r.group);
      REQUIRE(static_cast<int>(r.hosts.size()) == r.ranks);
      REQUIRE(r.job.mapping.size() == r.hosts.size());
      for (std::size_t i = 0; i < r.hosts.size(); ++i) CHECK(p.computers[r.job.mapping[i]].name == r.hosts[i]);
      // Every run spans both computers.
      CHECK(std::count(r.hosts.begin(), r.hosts.end(), "fast") > 0);
      CHECK(std::count(r.hosts.begin(), r.hosts.end(), "slow") > 0);
      cyclic = cyclic || r.hosts == std::vector<std::string>{"fast", "slow", "fast", "slow"};
      block = block || (r.hosts == std::vector<std::string>{"fast", "fast", "slow", "slow"} && r.job.lu.remove == 0);
      // A removal takes the highest-numbered ranks: exactly the slow computer's.
      if (r.job.kind == AppJob::Kind::kLu && r.job.lu.remove > 0) {
        CHECK(r.group == "lu-removal");
        CHECK(std::count(r.hosts.begin(), r.hosts.end(), "slow") == r.job.lu.remove);
        for (int k = r.ranks - r.job.lu.remove; k < r.ranks; ++k) CHECK(r.hosts[static_cast<std::size_t>(k)] == "slow");
      }
      if (r.job.kind == AppJob::Kind::kIntegrate) {
        CHECK(r.job.integrate.disk_bytes == 0);  // the computers share the host's disk
        CHECK(r.ranks == 2 * r.job.instances);
        if (r.job.instances >= 2) {
          std::set<std::string> workers;
          for (int i = 0; i < r.job.instances; ++i) workers.insert(r.hosts[static_cast<std::size_t>(2 * i + 1)]);
          CHECK(workers.size() == 2);  // workers on both kinds of computer
        }
      }
    }
    CHECK(cyclic);
    CHECK(block);
    CHECK(groups == std::set<std::string>{"lu", "lu-mapping", "lu-removal", "integrate", "integrate-load"});
    // Its calibration runs take each computer alone, at sizes the matrix does not validate.
    const auto cal = testbed_calibration_matrix(o, "fast", "slow");
    REQUIRE_FALSE(cal.empty());
    std::set<std::string> calibrated;
    for (const auto& c : cal) {
      CHECK(static_cast<int>(c.hosts.size()) == c.ranks);
      CHECK(std::count(c.hosts.begin(), c.hosts.end(), c.hosts.front()) == c.ranks);
      calibrated.insert(c.hosts.front());
      for (const auto& r : runs) {
        const auto& a = r.arguments;
        const auto& b = c.arguments;
        if (a[0] != b[0]) continue;
        const std::string key = a[0] == "lu" ? "--n" : "--steps";
        CHECK(*(std::find(a.begin(), a.end(), key) + 1) != *(std::find(b.begin(), b.end(), key) + 1));
      }
    }
    CHECK(calibrated == std::set<std::string>{"fast", "slow"});
    // So with each computer calibrated alone (one and two ranks, the matrix's sizes inside the
    // calibrated range), every validated job is held out along the computers axis, and only LU and
    // integration beyond two ranks on a computer along another.
    Profile alone = p;
    for (auto& c : alone.computers) {
      c.app_models.calibrated.ranks = {1, 2};
      c.app_models.calibrated.sizes = {{"lu", {768, 2048}}, {"integrate", {2e6, 8e6}}};
      c.app_models.calibrated.variants = {"basic"};
    }
    for (const auto& r : runs) {
      const auto axes = held_out_axes(r, alone);
      CHECK(std::count(axes.begin(), axes.end(), "computers") == 1);
      CHECK(std::count(axes.begin(), axes.end(), "size") == 0);
    }
  }
  CHECK_THROWS_WITH(testbed_matrix(o, p, "fast", "elsewhere"), Catch::Contains("'elsewhere' is not in the profile"));
}

TEST_CASE("validate: further runs go to the configurations whose median is not yet known to the precision") {
  std::vector<ValidationRun> runs(4);
  runs[0].measured_samples_s = {1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01};  // median 1.00, interval [0.98, 1.02]
  runs[1].measured_samples_s = {1.00, 1.50, 0.99, 1.02, 0.98, 1.00, 1.01};  // one slow run: up to +50%
  runs[2].measured_samples_s = {1.0, 1.0};                                  // too few for an interval
  runs[3].measured_samples_s = {};
  CHECK(imprecise_medians(runs, 0.05) == std::vector<std::size_t>{1, 2, 3});
  CHECK(imprecise_medians(runs, 0.5) == std::vector<std::size_t>{2, 3});
  CHECK(imprecise_medians(runs, 0.01) == std::vector<std::size_t>{0, 1, 2, 3});
  // Twelve runs: the median's 95% interval is the 3rd to the 10th value, so two slow runs no longer
  // widen it.
  runs[1].measured_samples_s = {1.00, 1.50, 0.99, 1.02, 0.98, 1.00, 1.01, 1.6, 1.0, 1.01, 0.99, 1.0};
  CHECK(imprecise_medians(runs, 0.05) == std::vector<std::size_t>{2, 3});
}

TEST_CASE("validate: a further round brings calibration runs of the same apps in the seeded order's proportion") {
  // Two LU and one integration configuration validated, 7 runs each; 3 LU and 2 integration
  // calibration configurations, 3 runs each.
  const std::vector<std::string> validated = {"lu", "lu", "integrate"};
  const std::vector<std::string> calibration = {"lu", "lu", "lu", "integrate", "integrate"};
  // The integration alone is imprecise: 2 · 3 / (1 · 7) = 0.857 calibration runs per further run, of
  // the integration's calibration configurations only, each at most once.
  std::map<std::size_t, int> drawn;
  for (std::uint64_t seed = 0; seed < 700; ++seed) {
    const auto order = further_round(validated, {2}, calibration, 7, 3, seed);
    REQUIRE(std::count(order.begin(), order.end(), 2u) == 1);
    REQUIRE(order.size() <= 2);
    for (std::size_t k : order) {
      if (k == 2) continue;
      REQUIRE((k == 3 + 3 || k == 3 + 4));  // validated.size() + an integration calibration configuration
      ++drawn[k];
    }
  }
  const int calibration_runs = drawn[6] + drawn[7];
  CHECK(calibration_runs > 560);  // 0.857 · 700 = 600 expected
  CHECK(calibration_runs < 640);
  CHECK(drawn[6] > 250);  // both configurations drawn
  CHECK(drawn[7] > 250);
  // Both LU configurations imprecise: 2 · 3 · 3 / (2 · 7) = 1.29 per round; in a seeded order.
  const auto order = further_round(validated, {0, 1}, calibration, 7, 3, 5);
  CHECK(order == further_round(validated, {0, 1}, calibration, 7, 3, 5));
  CHECK(std::count_if(order.begin(), order.end(), [](std::size_t k) { return k >= 3; }) >= 1);
  CHECK(std::all_of(order.begin(), order.end(), [](std::size_t k) { return k <= 1 || (k >= 3 && k <= 5); }));
  // Without calibration (a given profile), the round is the validated runs alone.
  CHECK(further_round(validated, {0, 2}, {}, 7, 3, 1).size() == 2);
}
