// Memory slowdown: linear below the knee, exponential beyond it (UniMPP paper eq. 3, Tables 2, 5, 6).
#include "hetperf/calibrate/memory_slowdown_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fit_input.hpp"
#include "hetperf/calibrate/exponential_fit.hpp"
#include "hetperf/calibrate/polynomial_fit.hpp"
#include "hetperf/model/csv.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::calibrate {
namespace {

double squared_error(const FitSummary& f, std::span<const double> x, std::span<const double> y) {
  double ss = 0;
  for (std::size_t i = 0; i < x.size(); ++i) ss += (y[i] - f.predict(x[i])) * (y[i] - f.predict(x[i]));
  return ss;
}

// Both parts for the points split at index `split` (points [0, split) linear, [split, n) exponential).
MemorySlowdownFitSummary fit_split(std::span<const double> x, std::span<const double> y, std::size_t split,
                                   const MemorySlowdownFitOptions& options) {
  MemorySlowdownFitSummary s;
  PolynomialFitOptions line;
  line.name = options.name + ": memory slowdown, main memory (linear)";
  line.parameter_names = {"b", "a_per_mb"};
  s.main = fit_polynomial(x.first(split), y.first(split), line);
  s.total_squared_error = squared_error(s.main, x.first(split), y.first(split));
  if (split < x.size()) {
    ExponentialFitOptions ex;
    ex.name = options.name + ": memory slowdown, swap (exponential)";
    ex.d_name = "d_per_mb";
    ex.relative_errors = options.relative_errors_swap;
    s.swap = fit_exponential(x.subspan(split), y.subspan(split), ex);
    s.total_squared_error += squared_error(*s.swap, x.subspan(split), y.subspan(split));
    s.swap_form = "exponential";
    if (s.swap->r2 < options.table_below_r2) {
      s.swap_form = "table";
      for (std::size_t i = split; i < x.size(); ++i) s.swap_table.push_back({x[i], y[i]});
    }
  }
  const FitParameter& slope = s.main.parameter("a_per_mb");
  s.main_flat = slope.ci95_low <= 0 && slope.ci95_high >= 0;
  if (!options.alpha_standard_errors.empty() && split >= 3) {
    double chi2 = 0;
    for (std::size_t i = 0; i < split; ++i) {
      const double z = (y[i] - s.main.predict(x[i])) / options.alpha_standard_errors[i];
      chi2 += z * z;
    }
    const double dof = static_cast<double>(split - 2);
    s.main_chi2 = chi2;
    s.main_chi2_dof = dof;
    s.main_lack_of_fit_p = chi_squared_upper_tail(chi2, dof);
  }
  return s;
}

}  // namespace

bool MemorySlowdownFitOptions::is_valid(std::string* error) const {
  if (knee_mb && !(*knee_mb > 0 && std::isfinite(*knee_mb))) {
    *error = "knee_mb: expected a positive number, got " + csv_number(*knee_mb);
    return false;
  }
  if (!(table_below_r2 >= 0 && table_below_r2 <= 1)) {
    *error = "table_below_r2: expected a number in [0, 1], got " + csv_number(table_below_r2);
    return false;
  }
  if (min_segment_points < 3) {
    *error = "min_segment_points: expected at least 3, got " + std::to_string(min_segment_points);
    return false;
  }
  return true;
}

unimpp::SlowdownFunction MemorySlowdownFitSummary::function() const {
  unimpp::SlowdownFunction f;
  f.main_memory_mb = knee_mb;
  f.main = {main.parameter("a_per_mb").value, main.parameter("b").value};
  if (swap_form == "table") {
    f.virtual_table = swap_table;
    return f;
  }
  if (swap)
    f.virtual_memory = unimpp::ExponentialSlowdown{swap->parameter("c").value, swap->parameter("d_per_mb").value};
  return f;
}

MemorySlowdownFitSummary fit_memory_slowdown(std::span<const double> x, std::span<const double> y,
                                             const MemorySlowdownFitOptions& options) {
  std::string error;
  HETPERF_CHECK(options.is_valid(&error), "MemorySlowdownFitOptions: " + error);
  check_fit_input(options.name + ": memory slowdown", x, y, 3);
  const std::size_t n = x.size();
  const auto& se = options.alpha_standard_errors;
  HETPERF_CHECK(se.empty() || (se.size() == n &&
                               std::all_of(se.begin(), se.end(), [](double e) { return e > 0 && std::isfinite(e); })),
                "MemorySlowdownFitOptions: alpha_standard_errors: one positive finite number per point");
  if (options.knee_mb) {
    std::size_t split = 0;
    while (split < n && x[split] <= *options.knee_mb) ++split;
    if (split < 3) {
      throw InputError(options.name + ": memory slowdown: expected at least 3 points at or below the knee (" +
                       csv_number(*options.knee_mb) + " MB), got " + std::to_string(split));
    }
    if (split < n && n - split < 3) {
      throw InputError(options.name + ": memory slowdown: expected at least 3 points beyond the knee (" +
                       csv_number(*options.knee_mb) + " MB) to fit the swap region, got " + std::to_string(n - split));
    }
    MemorySlowdownFitSummary s = fit_split(x, y, split, options);
    s.knee_mb = s.knee_low_mb = s.knee_high_mb = *options.knee_mb;
    s.knee_source = "measured main-memory capacity";
    return s;
  }
  // Unknown capacity: the breakpoint that minimises the total squared error of both parts.
  const std::size_t m = options.min_segment_points;
  if (n < 2 * m) {
    throw InputError(options.name + ": memory slowdown: expected at least " + std::to_string(2 * m) +
                     " points to search the main-memory knee (capacity unknown), got " + std::to_string(n));
  }
  std::optional<MemorySlowdownFitSummary> best;
  std::size_t best_split = 0;
  for (std::size_t split = m; split + m <= n; ++split) {
    MemorySlowdownFitSummary s = fit_split(x, y, split, options);
    if (!best || s.total_squared_error < best->total_squared_error) best = std::move(s), best_split = split;
  }
  best->knee_low_mb = x[best_split - 1];
  best->knee_high_mb = x[best_split];
  best->knee_mb = (best->knee_low_mb + best->knee_high_mb) / 2;
  best->knee_source = "breakpoint minimising the total squared error (capacity unknown)";
  return *best;
}

}  // namespace hetperf::calibrate
