// Tests of calibrate/src/kernel_model_fit.cpp: LU kernel times as functions of the block size.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "hetperf/calibrate/kernel_model_fit.hpp"
#include "hetperf/model/error.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

TEST_CASE("calibrate: kernel model fit recovers dgemm's a·r³ + b·r² + c within its intervals under noise") {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> noise(0, 0.03);
  int covered = 0;
  const int replicates = 200;
  for (int k = 0; k < replicates; ++k) {
    std::vector<double> r, t;
    for (double b : {16.0, 32.0, 48.0, 64.0, 96.0, 128.0, 192.0, 256.0}) {
      r.push_back(b);
      t.push_back((2.5e-10 * b * b * b + 1e-9 * b * b + 2e-6) * (1 + noise(rng)));
    }
    KernelModelFitSummary s = fit_kernel_model(r, t, {"dgemm", "dgemm", 0});
    covered += s.fit.parameter("r3_s").ci95_low <= 2.5e-10 && 2.5e-10 <= s.fit.parameter("r3_s").ci95_high;
  }
  CHECK(covered / double(replicates) >= 0.90);
}

TEST_CASE("calibrate: kernel model powers follow the kernels' operation counts") {
  CHECK(kernel_model_powers("dgemm") == std::vector<int>{3, 2, 0});
  CHECK(kernel_model_powers("dgetrf") == std::vector<int>{3, 2, 0});
  CHECK(kernel_model_powers("dlaswp") == std::vector<int>{2, 1, 0});
}

TEST_CASE("calibrate: kernel model fit stores a model that evaluates like the fit") {
  std::vector<double> r = {8, 16, 32, 64, 128}, t;
  for (double b : r) t.push_back(4e-9 * b * b + 2e-8 * b + 1e-6);
  KernelModelFitSummary s = fit_kernel_model(r, t, {"dlaswp", "dlaswp", 0});
  CHECK(s.model.time_s(50) == Approx(s.fit.predict(50)));
  CHECK(s.model.time_s(50) == Approx(4e-9 * 2500 + 2e-8 * 50 + 1e-6));
  std::vector<double> bad = {0, 16, 32, 64, 128};
  CHECK_THROWS_WITH(fit_kernel_model(bad, t, {"x", "dlaswp", 0}), Catch::Contains("positive block size"));
}
