// Non-linear least squares for y = c·e^(d·x), the memory slowdown once swap is used (UniMPP paper eq. 3,
// Tables 2, 5, 6), solved with Ceres Solver from a log-linear starting point, with x scaled to [0, 1]
// for conditioning.
#pragma once

#include <span>
#include <string>

#include "hetperf/calibrate/fit_summary.hpp"

namespace hetperf::calibrate {

struct ExponentialFitOptions {
  std::string name;          // carried into the summary
  std::string c_name = "c";  // parameter names in the summary
  std::string d_name = "d_per_x";
  bool relative_errors = false;  // weights 1/y² (falls back to unweighted when some y <= 0, and the
                                 // termination says so)
  int max_iterations = 200;      // Levenberg-Marquardt iterations, >= 1

  bool is_valid(std::string* error) const;
};

// Fits y ≈ c·e^(d·x) with c >= 0. Needs at least 3 points (InputError otherwise, or on NaN/infinity).
// The covariance is s²·(JᵀWJ)⁻¹ at the solution, J the Jacobian in (c, d).
FitSummary fit_exponential(std::span<const double> x, std::span<const double> y, const ExponentialFitOptions& options);

}  // namespace hetperf::calibrate
