// Linear least squares on powers of x: lines (t = l + s/b, α = a·x + b) and the LU kernels' time
// models (t(r) = a·r³ + b·r² + c). Solved in closed form by QR on a column-scaled design matrix.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_summary.hpp"

namespace hetperf::calibrate {

struct PolynomialFitOptions {
  std::string name;                          // carried into the summary
  std::vector<int> powers = {0, 1};          // distinct, >= 0; default: the line p0 + p1·x
  std::vector<std::string> parameter_names;  // one per power; default "p<power>"
  bool relative_errors = false;              // weights 1/y² (y must then be > 0): each point counts by its
                                             // relative error, so small and large values weigh alike

  // False with a message naming the option, its value and the rule when the options are unusable.
  bool is_valid(std::string* error) const;
};

// Fits y ≈ Σ p_k x^powers[k]. Throws InputError when there are not more points than parameters, when
// x or y holds NaN or infinity, or when relative_errors is set and some y <= 0. The covariance is
// s²·(XᵀWX)⁻¹ with s² the weighted residual variance.
FitSummary fit_polynomial(std::span<const double> x, std::span<const double> y, const PolynomialFitOptions& options);

}  // namespace hetperf::calibrate
