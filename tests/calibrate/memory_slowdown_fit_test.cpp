// Tests of calibrate/src/memory_slowdown_fit.cpp against UniMPP's memory slowdown tables.
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "hetperf/calibrate/memory_slowdown_fit.hpp"
#include "hetperf/model/error.hpp"
#include "synthetic_measurement.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;
using hetperf::testing::SeedSlowdown;

namespace {

// 12 points up to the knee and 12 beyond it, with multiplicative noise.
void sample(const SeedSlowdown& m, double noise_sd, std::mt19937_64& rng, std::vector<double>& x,
            std::vector<double>& y) {
  hetperf::testing::SyntheticOptions o;
  o.memory = m;
  hetperf::testing::SyntheticMeasurement gen(o);
  std::normal_distribution<double> noise(0, noise_sd);
  x.clear(), y.clear();
  for (int i = 1; i <= 24; ++i) {
    double v = i <= 12 ? m.knee_mb * i / 12 : m.knee_mb + m.swap_mb * (i - 12) / 12;
    x.push_back(v);
    y.push_back(gen.alpha(v) * (1 + (noise_sd > 0 ? noise(rng) : 0)));
  }
}

bool covers(const FitParameter& p, double truth) { return p.ci95_low <= truth && truth <= p.ci95_high; }

struct Named {
  const char* table;
  SeedSlowdown m;
};
const Named kSeedTables[] = {{"Table 2", hetperf::testing::kTable2},
                             {"Table 5", hetperf::testing::kTable5},
                             {"Table 6", hetperf::testing::kTable6}};

}  // namespace

TEST_CASE("calibrate: memory slowdown fit recovers seed Tables 2, 5 and 6 without noise at the measured knee") {
  std::mt19937_64 rng(3);
  for (const auto& [table, m] : kSeedTables) {
    INFO(table);
    std::vector<double> x, y;
    sample(m, 0, rng, x, y);
    MemorySlowdownFitOptions o;
    o.name = "c";
    o.knee_mb = m.knee_mb;
    MemorySlowdownFitSummary s = fit_memory_slowdown(x, y, o);
    CHECK(s.knee_mb == m.knee_mb);
    CHECK(s.knee_source == "measured main-memory capacity");
    CHECK(s.main.parameter("a_per_mb").value == Approx(m.a_per_mb).epsilon(1e-9));
    CHECK(s.main.parameter("b").value == Approx(m.b).margin(1e-12));
    REQUIRE(s.swap);
    CHECK(s.swap->parameter("c").value == Approx(m.c).epsilon(1e-7));
    CHECK(s.swap->parameter("d_per_mb").value == Approx(m.d_per_mb).epsilon(1e-8));
    unimpp::SlowdownFunction f = s.function();
    CHECK(f.alpha(m.knee_mb / 2) == Approx(m.a_per_mb * m.knee_mb / 2 + m.b));
  }
}

TEST_CASE("calibrate: memory slowdown fit intervals hold the seed tables' parameters under 3 percent noise") {
  std::mt19937_64 rng(5);
  for (const auto& [table, m] : kSeedTables) {
    INFO(table);
    const int replicates = 200;
    int a = 0, b = 0, c = 0, d = 0;
    for (int k = 0; k < replicates; ++k) {
      std::vector<double> x, y;
      sample(m, 0.03, rng, x, y);
      MemorySlowdownFitOptions o;
      o.knee_mb = m.knee_mb;
      MemorySlowdownFitSummary s = fit_memory_slowdown(x, y, o);
      a += covers(s.main.parameter("a_per_mb"), m.a_per_mb);
      b += covers(s.main.parameter("b"), m.b);
      c += covers(s.swap->parameter("c"), m.c);
      d += covers(s.swap->parameter("d_per_mb"), m.d_per_mb);
    }
    // Nominal 95%. The linear part's noise grows with α (multiplicative), which ordinary least squares
    // does not model, so allow the coverage to fall to 88%.
    CHECK(a / double(replicates) >= 0.88);
    CHECK(b / double(replicates) >= 0.88);
    CHECK(c / double(replicates) >= 0.88);
    CHECK(d / double(replicates) >= 0.88);
  }
}

TEST_CASE("calibrate: memory slowdown fit finds the knee by least squares when the capacity is unknown") {
  std::mt19937_64 rng(9);
  for (const auto& [table, m] : kSeedTables) {
    INFO(table);
    std::vector<double> x, y;
    sample(m, 0.02, rng, x, y);
    MemorySlowdownFitOptions o;
    MemorySlowdownFitSummary s = fit_memory_slowdown(x, y, o);
    CHECK_THAT(s.knee_source, Catch::Contains("breakpoint"));
    // The true knee is the 12th point; the search reports the gap between the 12th and the 13th.
    CHECK(s.knee_low_mb == Approx(m.knee_mb));
    CHECK(s.knee_high_mb == Approx(m.knee_mb + m.swap_mb / 12));
    CHECK(s.swap->parameter("d_per_mb").value == Approx(m.d_per_mb).epsilon(0.1));
  }
}

TEST_CASE("calibrate: memory slowdown fit rejects too few points on either side of the knee") {
  std::vector<double> x = {100, 200, 300, 1100, 1200}, y = {0.1, 0.2, 0.3, 7, 9};
  MemorySlowdownFitOptions o;
  o.name = "c9";
  o.knee_mb = 1024;
  CHECK_THROWS_WITH(fit_memory_slowdown(x, y, o), Catch::Contains("at least 3 points beyond the knee"));
  o.knee_mb = 150;
  CHECK_THROWS_WITH(fit_memory_slowdown(x, y, o), Catch::Contains("at least 3 points at or below the knee"));
  o.knee_mb.reset();
  CHECK_THROWS_WITH(fit_memory_slowdown(x, y, o), Catch::Contains("at least 6 points"));
}

TEST_CASE("calibrate: memory slowdown fit without swap points keeps only the linear part") {
  std::vector<double> x = {100, 200, 300, 400}, y = {0.11, 0.23, 0.35, 0.47};
  MemorySlowdownFitOptions o;
  o.knee_mb = 512;
  MemorySlowdownFitSummary s = fit_memory_slowdown(x, y, o);
  CHECK_FALSE(s.swap);
  CHECK_FALSE(s.function().virtual_memory);
}

TEST_CASE(
    "calibrate: memory slowdown fit reports a flat main part and keeps a curve the exponential misses as a table") {
  // The probe's shape: flat noise below the knee, then c·(1 − L/x) (a resident page with probability L/x).
  std::vector<double> x, y;
  const double noise[] = {0.02, -0.03, 0.01, -0.01, 0.03, -0.02, 0.0, 0.01};
  for (int i = 0; i < 8; ++i) x.push_back(16 + 14 * i), y.push_back(noise[i]);
  for (double v : {131.0, 135.0, 140.0, 160.0, 180.0, 200.0, 220.0}) x.push_back(v), y.push_back(200 * (1 - 128 / v));
  MemorySlowdownFitOptions o;
  o.name = "vm";
  o.knee_mb = 128;
  MemorySlowdownFitSummary s = fit_memory_slowdown(x, y, o);
  CHECK(s.main_flat);
  REQUIRE(s.swap);
  CHECK(s.swap->r2 < 0.9);
  CHECK(s.swap_form == "table");
  REQUIRE(s.swap_table.size() == 7);
  CHECK(s.swap_table.front().occupied_mb == 131);
  const auto f = s.function();
  CHECK_FALSE(f.virtual_memory);
  CHECK(f.alpha(160) == Approx(200 * (1 - 128.0 / 160)));
  // The UniMPP paper's own curve (Table 2) is exponential beyond the knee and linear with a slope below it.
  std::vector<double> x2, y2;
  std::mt19937_64 rng(1);
  sample(hetperf::testing::kTable2, 0, rng, x2, y2);
  o.knee_mb = hetperf::testing::kTable2.knee_mb;
  MemorySlowdownFitSummary seed = fit_memory_slowdown(x2, y2, o);
  CHECK_FALSE(seed.main_flat);
  CHECK(seed.swap_form == "exponential");
  CHECK(seed.function().virtual_table.empty());
}

TEST_CASE("calibrate: memory slowdown fit tests the line's lack of fit against the points' own noise") {
  // A probe's main-memory part: a slope of 0.001 per MB under noise of standard error 0.05 per
  // point. Its R² is low (the slope explains little of the noise), yet the residuals are what the
  // noise explains: no lack of fit.
  std::vector<double> x, y;
  const double noise[] = {0.04, -0.06, 0.02, -0.03, 0.05, -0.04, 0.01, 0.03, -0.05, 0.02, -0.01, 0.0};
  for (int i = 0; i < 12; ++i) x.push_back(16 + 10 * i), y.push_back(0.001 * x.back() - 0.1 + noise[i]);
  for (double v : {131.0, 140.0, 160.0, 180.0}) x.push_back(v), y.push_back(200 * (1 - 128 / v));
  MemorySlowdownFitOptions o;
  o.name = "vm";
  o.knee_mb = 128;
  MemorySlowdownFitSummary unknown = fit_memory_slowdown(x, y, o);
  CHECK_FALSE(unknown.main_lack_of_fit_p);  // no standard errors: no test
  CHECK_FALSE(unknown.main_within_noise());
  o.alpha_standard_errors.assign(x.size(), 0.05);
  MemorySlowdownFitSummary s = fit_memory_slowdown(x, y, o);
  CHECK(s.main.r2 < 0.9);
  REQUIRE(s.main_lack_of_fit_p);
  CHECK(*s.main_chi2_dof == 10);
  CHECK(*s.main_lack_of_fit_p > 0.1);
  CHECK(s.main_within_noise());
  // The same points with standard errors ten times smaller: the residuals are no longer noise.
  o.alpha_standard_errors.assign(x.size(), 0.005);
  MemorySlowdownFitSummary tight = fit_memory_slowdown(x, y, o);
  REQUIRE(tight.main_lack_of_fit_p);
  CHECK(*tight.main_lack_of_fit_p < 0.01);
  CHECK_FALSE(tight.main_within_noise());
}
