// The result of one curve fit, shared by every fit in calibrate/ ("options in, summary out", as in
// Ceres Solver's Solver::Summary): parameters with standard errors and 95% confidence intervals, R²,
// how the solve ended, and enough of the model to evaluate the curve and its confidence band.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf::calibrate {

// The two model families the calibration fits.
enum class FitModel {
  kPolynomial,   // y = Σ p_k · x^powers[k] (a line is powers {0, 1})
  kExponential,  // y = c · e^(d·x), parameters {c, d}
};

struct FitParameter {
  std::string name;  // e.g. "a_per_mb", "latency_s"; the unit is in the name
  double value = 0;
  double std_error = 0;  // sqrt of the covariance diagonal (covariance scaled by the residual variance)
  double ci95_low = 0;   // value ∓ t(0.975, dof) · std_error
  double ci95_high = 0;
};

struct FitSummary {
  std::string name;  // what was fitted, e.g. "c1: memory slowdown, main memory (linear)"
  FitModel model = FitModel::kPolynomial;
  std::vector<int> powers;  // polynomial only: the power of x of each parameter
  std::vector<FitParameter> parameters;
  std::vector<double> covariance;  // row-major, parameters.size()², in the parameters' units
  std::size_t points = 0;          // data points used
  std::size_t dof = 0;             // points - parameters (>= 1)
  double r2 = 0;                   // 1 - SS_res / SS_tot over the unweighted data; 1 when SS_tot = 0
  double residual_stddev = 0;      // sqrt(weighted SS_res / dof), in units of y (relative when weighted)
  bool relative_errors = false;    // weights 1/y², i.e. least squares on relative errors
  double x_min = 0, x_max = 0;     // data range
  bool converged = true;           // the solver reached a minimum (always true for linear fits)
  std::string termination;         // e.g. "closed form (QR)", "CONVERGENCE after 7 iterations"

  // The fitted curve at x.
  double predict(double x) const;
  // Half-width of the 95% confidence band of the fitted mean curve at x: t(0.975, dof)·sqrt(gᵀΣg),
  // g the gradient of the model in its parameters.
  double band_half_width95(double x) const;
  // The parameter named `name`; HETPERF_CHECK fails when there is none.
  const FitParameter& parameter(const std::string& name) const;
  // One line: "<name>: y = ... ; R² 0.991, n 12, converged (...)".
  std::string brief_report() const;
};

// {"model", "equation", "parameters": {name: {"value", "std_error", "ci95"}}, "r2", "points", "dof",
//  "residual_stddev", "relative_errors", "x_range", "converged", "termination"}.
nlohmann::json to_json(const FitSummary& s);

// Fills std_error and the 95% interval of each parameter from `covariance` and `dof`.
void set_parameter_intervals(FitSummary& s);

}  // namespace hetperf::calibrate
