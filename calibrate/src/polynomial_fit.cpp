// Weighted linear least squares on powers of x (closed form, Eigen QR).
#include "hetperf/calibrate/polynomial_fit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <Eigen/Dense>

#include "fit_input.hpp"
#include "hetperf/model/csv.hpp"

namespace hetperf::calibrate {

bool PolynomialFitOptions::is_valid(std::string* error) const {
  std::set<int> seen;
  for (int p : powers) {
    if (p < 0 || !seen.insert(p).second) {
      *error = "powers: expected distinct non-negative integers, got " + std::to_string(p) + " (negative or repeated)";
      return false;
    }
  }
  if (powers.empty()) {
    *error = "powers: expected at least one power, got none";
    return false;
  }
  if (!parameter_names.empty() && parameter_names.size() != powers.size()) {
    *error = "parameter_names: expected " + std::to_string(powers.size()) + " names (one per power), got " +
             std::to_string(parameter_names.size());
    return false;
  }
  return true;
}

FitSummary fit_polynomial(std::span<const double> x, std::span<const double> y, const PolynomialFitOptions& options) {
  std::string error;
  HETPERF_CHECK(options.is_valid(&error), "PolynomialFitOptions: " + error);
  const std::size_t p = options.powers.size(), n = x.size();
  check_fit_input(options.name, x, y, p + 1);
  if (options.relative_errors) {
    for (std::size_t i = 0; i < n; ++i) {
      if (y[i] <= 0) {
        throw InputError(options.name + ": point " + std::to_string(i) +
                         ": expected a positive value (relative errors), got " + csv_number(y[i]));
      }
    }
  }
  // Columns (x/scale)^power keep XᵀX well conditioned when x spans decades (block sizes, message sizes).
  double scale = 0;
  for (double v : x) scale = std::max(scale, std::fabs(v));
  if (scale == 0) scale = 1;
  Eigen::MatrixXd a(n, p);
  Eigen::VectorXd b(n);
  for (std::size_t i = 0; i < n; ++i) {
    double w = options.relative_errors ? 1 / y[i] : 1;
    for (std::size_t k = 0; k < p; ++k) a(i, k) = w * std::pow(x[i] / scale, options.powers[k]);
    b(i) = w * y[i];
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  if (qr.rank() < static_cast<Eigen::Index>(p)) {
    throw InputError(options.name + ": the points do not determine the " + std::to_string(p) +
                     " parameters (too few distinct x values)");
  }
  Eigen::VectorXd beta = qr.solve(b);
  Eigen::VectorXd residual = b - a * beta;
  const std::size_t dof = n - p;
  double s2 = residual.squaredNorm() / static_cast<double>(dof);
  Eigen::MatrixXd cov = s2 * (a.transpose() * a).inverse();

  FitSummary s;
  s.name = options.name;
  s.model = FitModel::kPolynomial;
  s.powers = options.powers;
  s.points = n;
  s.dof = dof;
  s.relative_errors = options.relative_errors;
  s.residual_stddev = std::sqrt(s2);
  s.x_min = *std::min_element(x.begin(), x.end());
  s.x_max = *std::max_element(x.begin(), x.end());
  s.termination = "closed form (column-pivoting QR)";
  std::vector<double> unscale(p);
  for (std::size_t k = 0; k < p; ++k) unscale[k] = std::pow(scale, -options.powers[k]);
  for (std::size_t k = 0; k < p; ++k) {
    std::string pname = options.parameter_names.empty() ? std::string("p").append(std::to_string(options.powers[k]))
                                                        : options.parameter_names[k];
    s.parameters.push_back({pname, beta(static_cast<Eigen::Index>(k)) * unscale[k], 0, 0, 0});
  }
  s.covariance.resize(p * p);
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      s.covariance[i * p + j] =
          cov(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) * unscale[i] * unscale[j];
    }
  }
  set_parameter_intervals(s);
  s.r2 = r_squared(x, y, [&](double v) { return s.predict(v); });
  return s;
}

}  // namespace hetperf::calibrate
