// Checks shared by the fits: point counts and finite values, reported as InputError.
#pragma once

#include <cmath>
#include <span>
#include <string>

#include "hetperf/model/error.hpp"

namespace hetperf::calibrate {

inline void check_fit_input(const std::string& fit, std::span<const double> x, std::span<const double> y,
                            std::size_t min_points) {
  if (x.size() != y.size()) throw InputError(fit + ": expected as many x as y values");
  if (x.size() < min_points) {
    throw InputError(fit + ": expected at least " + std::to_string(min_points) + " points, got " +
                     std::to_string(x.size()));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      throw InputError(fit + ": point " + std::to_string(i) + ": expected finite numbers, got NaN or infinity");
    }
  }
}

// R² = 1 - SS_res / SS_tot over unweighted data; 1 when the data have no variance and are fitted exactly.
template <class Predict>
double r_squared(std::span<const double> x, std::span<const double> y, Predict predict) {
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    double r = y[i] - predict(x[i]);
    ss_res += r * r;
    ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  if (ss_tot <= 0) return ss_res <= 0 ? 1.0 : 0.0;
  return 1 - ss_res / ss_tot;
}

}  // namespace hetperf::calibrate
