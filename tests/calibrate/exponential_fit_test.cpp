// Tests of calibrate/src/exponential_fit.cpp: the swap-region slowdown of UniMPP paper Tables 2, 5 and 6.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "hetperf/calibrate/exponential_fit.hpp"
#include "hetperf/model/error.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

namespace {

struct Exp {
  const char* table;
  double c, d, x0, x1;  // y = c·e^(d·x) on (x0, x1]
};
// The UniMPP paper: Table 2 (c1, c2: 1 GB main + 1 GB swap), Table 5 (c3: 256 + 400 MB), Table 6 (c4: 512 + 512 MB).
const Exp kExpTables[] = {{"Table 2", 0.0938, 0.0039, 1024, 2048},
                          {"Table 5", 0.7335, 0.0097, 256, 656},
                          {"Table 6", 0.0924, 0.0095, 512, 1024}};

void sample(const Exp& e, double noise_sd, std::mt19937_64& rng, std::vector<double>& x, std::vector<double>& y) {
  std::normal_distribution<double> noise(0, noise_sd);
  x.clear(), y.clear();
  for (int i = 1; i <= 12; ++i) {
    double v = e.x0 + (e.x1 - e.x0) * i / 12;
    x.push_back(v);
    y.push_back(e.c * std::exp(e.d * v) * (1 + (noise_sd > 0 ? noise(rng) : 0)));
  }
}

}  // namespace

TEST_CASE("calibrate: exponential fit recovers the noise-free seed Table 2, 5 and 6 functions") {
  std::mt19937_64 rng(1);
  for (const Exp& e : kExpTables) {
    INFO(e.table);
    std::vector<double> x, y;
    sample(e, 0, rng, x, y);
    for (bool relative : {false, true}) {
      ExponentialFitOptions o;
      o.relative_errors = relative;
      FitSummary s = fit_exponential(x, y, o);
      CHECK(s.converged);
      CHECK(s.parameters[0].value == Approx(e.c).epsilon(1e-7));
      CHECK(s.parameters[1].value == Approx(e.d).epsilon(1e-8));
      // The true values lie in the reported intervals (widened by rounding-level slack only).
      CHECK(s.parameters[0].ci95_low - 1e-9 * e.c <= e.c);
      CHECK(e.c <= s.parameters[0].ci95_high + 1e-9 * e.c);
      CHECK(s.r2 == Approx(1.0));
    }
  }
}

TEST_CASE(
    "calibrate: exponential fit intervals cover the seed tables' parameters in about 95 percent of noisy replicates") {
  std::mt19937_64 rng(11);
  for (const Exp& e : kExpTables) {
    INFO(e.table);
    int covered_c = 0, covered_d = 0;
    const int replicates = 300;
    for (int k = 0; k < replicates; ++k) {
      std::vector<double> x, y;
      sample(e, 0.05, rng, x, y);
      ExponentialFitOptions o;
      o.relative_errors = true;  // the noise is multiplicative
      FitSummary s = fit_exponential(x, y, o);
      REQUIRE(s.converged);
      covered_c += s.parameters[0].ci95_low <= e.c && e.c <= s.parameters[0].ci95_high;
      covered_d += s.parameters[1].ci95_low <= e.d && e.d <= s.parameters[1].ci95_high;
    }
    // Nominal 95%; 300 replicates give a binomial sd of 1.3%, and the interval is asymptotic.
    CHECK(covered_c / double(replicates) >= 0.90);
    CHECK(covered_d / double(replicates) >= 0.90);
    CHECK(covered_c / double(replicates) <= 0.99);
  }
}

TEST_CASE("calibrate: exponential fit needs three finite points") {
  std::vector<double> x = {1, 2}, y = {1, 2};
  ExponentialFitOptions o;
  o.name = "swap";
  CHECK_THROWS_WITH(fit_exponential(x, y, o), Catch::Contains("swap: expected at least 3 points"));
  std::vector<double> x3 = {1, 2, 3}, y3 = {1, INFINITY, 3};
  CHECK_THROWS_AS(fit_exponential(x3, y3, o), InputError);
}

TEST_CASE("calibrate: exponential fit starts flat and says so when the data are not positive") {
  std::vector<double> x = {1, 2, 3, 4}, y = {-0.1, 0.05, -0.02, 0.01};
  ExponentialFitOptions o;
  o.relative_errors = true;
  FitSummary s = fit_exponential(x, y, o);
  CHECK_THAT(s.termination, Catch::Contains("flat start"));
  CHECK_THAT(s.termination, Catch::Contains("unweighted"));
  CHECK(s.parameters[0].value >= 0);
}
