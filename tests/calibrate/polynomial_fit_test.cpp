// Tests of calibrate/src/polynomial_fit.cpp and fit_summary.cpp.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "hetperf/calibrate/polynomial_fit.hpp"
#include "hetperf/model/error.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

TEST_CASE("calibrate: polynomial fit recovers a noise-free line exactly with R² 1") {
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) x.push_back(i * 100.0), y.push_back(0.0012 * i * 100.0 - 0.0065);  // seed Table 2
  PolynomialFitOptions o;
  o.name = "line";
  o.parameter_names = {"b", "a_per_mb"};
  FitSummary s = fit_polynomial(x, y, o);
  CHECK(s.parameter("a_per_mb").value == Approx(0.0012).epsilon(1e-10));
  CHECK(s.parameter("b").value == Approx(-0.0065).epsilon(1e-10));
  CHECK(s.r2 == Approx(1.0));
  CHECK(s.dof == 8);
  CHECK(s.predict(500) == Approx(0.0012 * 500 - 0.0065));
}

TEST_CASE("calibrate: polynomial fit standard errors match the textbook formula for a line") {
  // Known data: the slope's standard error of ordinary least squares is s / sqrt(Σ (x - x̄)²).
  std::vector<double> x = {1, 2, 3, 4, 5, 6}, y = {2.1, 3.9, 6.2, 7.8, 10.1, 12.0};
  FitSummary s = fit_polynomial(x, y, {});
  double mx = 3.5, sxx = 0, ss = 0;
  for (double v : x) sxx += (v - mx) * (v - mx);
  for (std::size_t i = 0; i < x.size(); ++i) {
    double r = y[i] - s.predict(x[i]);
    ss += r * r;
  }
  double se_slope = std::sqrt(ss / 4) / std::sqrt(sxx);
  CHECK(s.parameters[1].std_error == Approx(se_slope).epsilon(1e-9));
  CHECK(s.parameters[1].ci95_high - s.parameters[1].value ==
        Approx(2.7764451051977987 * se_slope).epsilon(1e-8));                                           // t(0.975, 4)
  CHECK(s.band_half_width95(3.5) == Approx(2.7764451051977987 * std::sqrt(ss / 4 / 6)).epsilon(1e-8));  // at x̄: s/√n
}

TEST_CASE("calibrate: polynomial fit recovers a cubic kernel model from block sizes spanning decades") {
  std::vector<double> r, t;
  for (double b : {16.0, 32.0, 64.0, 128.0, 256.0, 512.0})
    r.push_back(b), t.push_back(2.5e-10 * b * b * b + 1e-9 * b * b + 2e-6);
  PolynomialFitOptions o;
  o.powers = {3, 2, 0};
  o.relative_errors = true;
  FitSummary s = fit_polynomial(r, t, o);
  CHECK(s.parameters[0].value == Approx(2.5e-10).epsilon(1e-8));
  CHECK(s.parameters[1].value == Approx(1e-9).epsilon(1e-6));
  CHECK(s.parameters[2].value == Approx(2e-6).epsilon(1e-6));
}

TEST_CASE("calibrate: polynomial fit rejects too few points, NaN and non-positive values under relative errors") {
  std::vector<double> x2 = {1, 2}, y2 = {1, 2};
  PolynomialFitOptions o;
  o.name = "tiny";
  CHECK_THROWS_WITH(fit_polynomial(x2, y2, o), Catch::Contains("tiny: expected at least 3 points, got 2"));
  std::vector<double> x = {1, 2, 3}, y = {1, std::numeric_limits<double>::quiet_NaN(), 3};
  CHECK_THROWS_WITH(fit_polynomial(x, y, o), Catch::Contains("point 1: expected finite numbers"));
  std::vector<double> yneg = {1, -2, 3};
  o.relative_errors = true;
  CHECK_THROWS_AS(fit_polynomial(x, yneg, o), InputError);
  std::vector<double> same = {2, 2, 2};
  o.relative_errors = false;
  CHECK_THROWS_WITH(fit_polynomial(same, x, o), Catch::Contains("do not determine"));
}

TEST_CASE("calibrate: polynomial fit options name the offending option when invalid") {
  PolynomialFitOptions o;
  o.powers = {0, 1, 1};
  std::string error;
  CHECK_FALSE(o.is_valid(&error));
  CHECK_THAT(error, Catch::Contains("powers"));
  o.powers = {0, 1};
  o.parameter_names = {"only_one"};
  CHECK_FALSE(o.is_valid(&error));
  CHECK_THAT(error, Catch::Contains("parameter_names"));
}

TEST_CASE("calibrate: polynomial fit intervals cover the true line in about 95 percent of noisy replicates") {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.02);
  int covered_a = 0, covered_b = 0;
  const int replicates = 400;
  for (int k = 0; k < replicates; ++k) {
    std::vector<double> x, y;
    for (int i = 1; i <= 12; ++i) x.push_back(i * 85.0), y.push_back(0.0012 * i * 85.0 - 0.0065 + noise(rng));
    FitSummary s = fit_polynomial(x, y, {});
    covered_b += s.parameters[0].ci95_low <= -0.0065 && -0.0065 <= s.parameters[0].ci95_high;
    covered_a += s.parameters[1].ci95_low <= 0.0012 && 0.0012 <= s.parameters[1].ci95_high;
  }
  // Binomial(400, 0.95): 0.92..0.98 holds with probability > 0.99.
  CHECK(covered_a / double(replicates) == Approx(0.95).margin(0.03));
  CHECK(covered_b / double(replicates) == Approx(0.95).margin(0.03));
}
