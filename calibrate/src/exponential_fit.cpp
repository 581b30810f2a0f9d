// y = c·e^(d·x) with Ceres Solver (UniMPP paper eq. 3; the swap-region slowdown of Tables 2, 5 and 6).
// The residual functor follows Ceres' examples/curve_fitting.cc.
#include "hetperf/calibrate/exponential_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <ceres/ceres.h>
#include <Eigen/Dense>

#include "fit_input.hpp"
#include "hetperf/calibrate/polynomial_fit.hpp"

namespace hetperf::calibrate {
namespace {

// Residual in the scaled abscissa u = x / scale, where the rate is d_u = d·scale.
struct ExponentialResidual {
  double u, y, w;
  template <typename T>
  bool operator()(const T* const c, const T* const d_u, T* residual) const {
    residual[0] = T(w) * (T(y) - c[0] * exp(d_u[0] * T(u)));
    return true;
  }
};

}  // namespace

bool ExponentialFitOptions::is_valid(std::string* error) const {
  if (max_iterations < 1) {
    *error = "max_iterations: expected at least 1, got " + std::to_string(max_iterations);
    return false;
  }
  return true;
}

namespace {

// The starting point: ln y = ln c + d·u over the positive points (the log-linear fit spreadsheets
// report), u = x / scale; false (and a flat start at the mean) with fewer than 3 positive points or
// when they do not determine a line.
bool start_point(std::span<const double> x, std::span<const double> y, double scale, const std::string& name, double& c,
                 double& d_u) {
  std::vector<double> lu, ly;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (y[i] > 0) lu.push_back(x[i] / scale), ly.push_back(std::log(y[i]));
  }
  if (lu.size() >= 3) {
    try {
      PolynomialFitOptions log_linear;
      log_linear.name = name + " (log-linear seed)";
      FitSummary seed = fit_polynomial(lu, ly, log_linear);
      c = std::exp(seed.parameters[0].value);
      d_u = seed.parameters[1].value;
      if (std::isfinite(c) && std::isfinite(d_u)) return true;
    } catch (const InputError&) {
      // e.g. all positive points at one x: fall back to a flat start
    }
  }
  double mean = 0;
  for (double v : y) mean += v;
  c = std::max(mean / static_cast<double>(y.size()), 1e-12), d_u = 0;
  return false;
}

// Least squares of y = c·exp(d_u·u) from (c, d_u) by Ceres, each residual weighted by w(y).
ceres::Solver::Summary solve(std::span<const double> x, std::span<const double> y, double scale, bool weighted,
                             int max_iterations, double& c, double& d_u) {
  ceres::Problem problem;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double w = weighted ? 1 / y[i] : 1;
    problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<ExponentialResidual, 1, 1, 1>(new ExponentialResidual{x[i] / scale, y[i], w}),
        nullptr, &c, &d_u);
  }
  problem.SetParameterLowerBound(&c, 0, 0.0);
  ceres::Solver::Options solver;
  solver.linear_solver_type = ceres::DENSE_QR;
  solver.max_num_iterations = max_iterations;
  solver.function_tolerance = 1e-15;
  solver.gradient_tolerance = 1e-15;
  solver.parameter_tolerance = 1e-14;
  solver.logging_type = ceres::SILENT;
  solver.minimizer_progress_to_stdout = false;
  ceres::Solver::Summary summary;
  ceres::Solve(solver, &problem, &summary);
  return summary;
}

}  // namespace

FitSummary fit_exponential(std::span<const double> x, std::span<const double> y, const ExponentialFitOptions& options) {
  std::string error;
  HETPERF_CHECK(options.is_valid(&error), "ExponentialFitOptions: " + error);
  check_fit_input(options.name, x, y, 3);
  const std::size_t n = x.size();
  double scale = 0;
  for (double v : x) scale = std::max(scale, std::fabs(v));
  if (scale == 0) throw InputError(options.name + ": expected some x different from 0");
  bool all_positive = std::all_of(y.begin(), y.end(), [](double v) { return v > 0; });
  bool weighted = options.relative_errors && all_positive;

  double c = 0, d_u = 0;
  const bool seeded = start_point(x, y, scale, options.name, c, d_u);
  const ceres::Solver::Summary summary = solve(x, y, scale, weighted, options.max_iterations, c, d_u);

  // Covariance s²·(JᵀWJ)⁻¹ in (c, d_u), then d = d_u / scale.
  Eigen::Matrix2d jtj = Eigen::Matrix2d::Zero();
  double ss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double u = x[i] / scale, w = weighted ? 1 / y[i] : 1, e = std::exp(d_u * u);
    Eigen::Vector2d g(w * e, w * c * u * e);
    jtj += g * g.transpose();
    double r = w * (y[i] - c * e);
    ss += r * r;
  }
  FitSummary s;
  s.name = options.name;
  s.model = FitModel::kExponential;
  s.points = n;
  s.dof = n - 2;
  s.relative_errors = weighted;
  double s2 = ss / static_cast<double>(s.dof);
  s.residual_stddev = std::sqrt(s2);
  s.x_min = *std::min_element(x.begin(), x.end());
  s.x_max = *std::max_element(x.begin(), x.end());
  s.parameters = {{options.c_name, c, 0, 0, 0}, {options.d_name, d_u / scale, 0, 0, 0}};
  double det = jtj.determinant();
  if (std::fabs(det) > 1e-14 * jtj.squaredNorm()) {
    Eigen::Matrix2d cov = s2 * jtj.inverse();
    s.covariance = {cov(0, 0), cov(0, 1) / scale, cov(1, 0) / scale, cov(1, 1) / (scale * scale)};
  } else {
    const double inf = std::numeric_limits<double>::infinity();
    s.covariance = {inf, 0, 0, inf};  // the data do not determine both parameters (e.g. c = 0)
  }
  set_parameter_intervals(s);
  s.converged = summary.termination_type == ceres::CONVERGENCE;
  s.termination = std::string("Ceres ") + ceres::TerminationTypeToString(summary.termination_type) + " after " +
                  std::to_string(summary.iterations.size()) + " iterations" +
                  (seeded ? ", seeded by a log-linear fit" : ", flat start (fewer than 3 positive points)") +
                  (options.relative_errors && !weighted ? "; unweighted (some y <= 0)" : "");
  s.r2 = r_squared(x, y, [&](double v) { return s.predict(v); });
  return s;
}

}  // namespace hetperf::calibrate
