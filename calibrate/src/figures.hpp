// The measured figures as calibration reads them: their central value (the median), their record
// with its interval, and the errors that name the file and JSON path of a figure that is not finite.
// Internal to calibrate (profile_builder.cpp, profile_network.cpp).
//
//   const double mips = checked_central(file, "$.probes.cpu.mips", cpu.mips);
//   c.fits["mips"] = figure(cpu.mips);
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "hetperf/model/error.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::calibrate::detail {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kLoMessageBytes = 32;  // UniMPP's net benchmark message size (UniMPP paper section 4)

inline std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The central value of a probe's samples is their median. On a shared machine noise only slows a
// measurement (another tenant's burst, a flush, a migration), so a few slow samples drag the mean
// while the median stays with the undisturbed runs; the probes' outliers reach 2.5 times the median
// (docs/calibration.md). A file without "median" (hand-written) reads as its mean.
inline double central(const SampleSummary& s) { return s.median; }

// A measured figure: the median with its distribution-free 95% interval (order statistics of the
// samples) and the asymptotic standard error of a median, sqrt(pi/2) * stddev / sqrt(n). Without
// raw samples the interval is the file's t-interval of the mean.
inline nlohmann::json figure(const SampleSummary& s) {
  const double se_median =
      s.n > 1 ? std::sqrt(std::acos(-1.0) / 2) * s.stddev / std::sqrt(static_cast<double>(s.n)) : 0;
  auto [low, high] = s.samples.empty() ? std::pair{s.ci95_low, s.ci95_high} : median_ci95(s.samples);
  return {{"value", s.median},   {"statistic", "median"}, {"std_error", se_median},
          {"ci95", {low, high}}, {"mean", s.mean},        {"n", s.n},
          {"precise", s.precise}};
}

// A fit failing on the data of `file` at JSON `path` becomes an error naming both.
template <class Fit>
auto fit_at(const std::string& file, const std::string& path, Fit fit) {
  try {
    return fit();
  } catch (const InputError& e) {
    throw InputError(file + ": " + path + ": " + e.what());
  }
}

inline void check_finite(const std::string& file, const std::string& path, double v) {
  if (!std::isfinite(v)) throw InputError(file + ": " + path + ": expected a finite number, got NaN or infinity");
}

// The central value of the figure at JSON `path` of `file`, refused when not finite.
inline double checked_central(const std::string& file, const std::string& path, const SampleSummary& s) {
  check_finite(file, path + ".median", central(s));
  return central(s);
}

}  // namespace hetperf::calibrate::detail
