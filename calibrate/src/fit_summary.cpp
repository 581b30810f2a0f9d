// FitSummary: evaluation of the fitted curve and its confidence band, reports and JSON.
#include "hetperf/calibrate/fit_summary.hpp"

#include <cmath>
#include <cstdio>

#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::calibrate {
namespace {

// The gradient of the model in its parameters at x.
std::vector<double> gradient(const FitSummary& s, double x) {
  std::vector<double> g(s.parameters.size());
  if (s.model == FitModel::kExponential) {
    double e = std::exp(s.parameters[1].value * x);
    g[0] = e;
    g[1] = s.parameters[0].value * x * e;
  } else {
    for (std::size_t k = 0; k < g.size(); ++k) g[k] = std::pow(x, s.powers[k]);
  }
  return g;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string equation(const FitSummary& s) {
  if (s.model == FitModel::kExponential) {
    return "y = " + number(s.parameters[0].value) + "·e^(" + number(s.parameters[1].value) + "·x)";
  }
  std::string e = "y =";
  for (std::size_t k = 0; k < s.parameters.size(); ++k) {
    double v = s.parameters[k].value;
    e += k == 0 ? (v < 0 ? " -" : " ") : (v < 0 ? " - " : " + ");
    e += number(std::fabs(v));
    if (s.powers[k] == 1)
      e += "·x";
    else if (s.powers[k] > 1)
      e += "·x^" + std::to_string(s.powers[k]);
  }
  return e;
}

}  // namespace

double FitSummary::predict(double x) const {
  std::vector<double> g = gradient(*this, x);
  if (model == FitModel::kExponential) return parameters[0].value * g[0];
  double y = 0;
  for (std::size_t k = 0; k < g.size(); ++k) y += parameters[k].value * g[k];
  return y;
}

double FitSummary::band_half_width95(double x) const {
  std::vector<double> g = gradient(*this, x);
  const std::size_t p = g.size();
  HETPERF_CHECK(covariance.size() == p * p, "fit summary covariance has the wrong size");
  double v = 0;
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t j = 0; j < p; ++j) v += g[i] * covariance[i * p + j] * g[j];
  }
  return t_quantile_975(dof) * std::sqrt(std::max(0.0, v));
}

const FitParameter& FitSummary::parameter(const std::string& wanted) const {
  for (const auto& p : parameters) {
    if (p.name == wanted) return p;
  }
  HETPERF_CHECK(false, "fit '" + name + "' has no parameter '" + wanted + "'");
  return parameters.front();
}

std::string FitSummary::brief_report() const {
  std::string r = name + ": " + equation(*this) + "; R² " + number(r2) + ", n " + std::to_string(points);
  for (const auto& p : parameters) {
    r += ", " + p.name + " " + number(p.value) + " [" + number(p.ci95_low) + ", " + number(p.ci95_high) + "]";
  }
  r += converged ? "; " : "; NOT CONVERGED: ";
  return r + termination;
}

void set_parameter_intervals(FitSummary& s) {
  const std::size_t p = s.parameters.size();
  HETPERF_CHECK(s.covariance.size() == p * p && s.dof >= 1, "fit summary needs a covariance and dof >= 1");
  double t = t_quantile_975(s.dof);
  for (std::size_t k = 0; k < p; ++k) {
    FitParameter& q = s.parameters[k];
    q.std_error = std::sqrt(std::max(0.0, s.covariance[k * p + k]));
    q.ci95_low = q.value - t * q.std_error;
    q.ci95_high = q.value + t * q.std_error;
  }
}

nlohmann::json to_json(const FitSummary& s) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& p : s.parameters) {
    params[p.name] = {{"value", p.value}, {"std_error", p.std_error}, {"ci95", {p.ci95_low, p.ci95_high}}};
  }
  nlohmann::json j = {{"model", s.model == FitModel::kExponential ? "exponential" : "polynomial"},
                      {"equation", equation(s)},
                      {"parameters", params},
                      {"r2", s.r2},
                      {"points", s.points},
                      {"dof", s.dof},
                      {"residual_stddev", s.residual_stddev},
                      {"relative_errors", s.relative_errors},
                      {"x_range", {s.x_min, s.x_max}},
                      {"converged", s.converged},
                      {"termination", s.termination}};
  if (s.model == FitModel::kPolynomial) j["powers"] = s.powers;
  return j;
}

}  // namespace hetperf::calibrate
