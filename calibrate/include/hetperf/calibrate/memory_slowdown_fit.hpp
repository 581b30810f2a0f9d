// The memory slowdown function α(occupied MB) of UniMPP paper eq. 3: linear while main memory holds the
// load (Tables 2, 5, 6: y = a·x + b), exponential once swap is used (y = c·e^(d·x)).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_summary.hpp"
#include "hetperf/model/unimpp.hpp"

namespace hetperf::calibrate {

struct MemorySlowdownFitOptions {
  std::string name;                           // prefix of the fits' names, e.g. the computer's name
  std::optional<double> knee_mb;              // main-memory capacity, MB, > 0; absent: search the breakpoint
  std::size_t min_segment_points = 3;         // points each side of a searched knee, >= 3
  bool relative_errors_swap = true;           // exponential fitted on relative errors (timing noise is
                                              // proportional to the time; the swap region spans decades)
  double table_below_r2 = 0.9;                // an exponential with a lower R² is replaced by the measured
                                              // points beyond the knee (the table), in [0, 1]
  std::vector<double> alpha_standard_errors;  // each point's standard error of α (its median's 95%
                                              // order-statistic interval / 3.92), one per point, all > 0; empty:
                                              // unknown, and no lack-of-fit test

  bool is_valid(std::string* error) const;
};

struct MemorySlowdownFitSummary {
  double knee_mb = 0;                        // where the linear part ends
  std::string knee_source;                   // "measured main-memory capacity" or "breakpoint search ..."
  double knee_low_mb = 0, knee_high_mb = 0;  // searched knee: the two points around it (else = knee)
  FitSummary main;                           // α = a·x + b for x <= knee, parameters a_per_mb, b
  bool main_flat = false;                    // the slope's 95% interval contains 0: α is flat below the knee
                                             // (R² then says nothing: there is no trend to explain)
  // Lack of fit of the line against the points' own noise: χ² = Σ (residual / standard error)² on
  // (points − 2) degrees of freedom, and its p-value. A line whose residuals are what the points' own
  // spread explains fits, whatever its R² (a slope of 0.001 per MB explains little of the noise and
  // is still the right line). Absent without standard errors or with fewer than 3 points.
  std::optional<double> main_chi2, main_chi2_dof, main_lack_of_fit_p;
  bool main_within_noise() const { return main_lack_of_fit_p && *main_lack_of_fit_p >= 0.01; }
  std::optional<FitSummary> swap;                 // α = c·e^(d·x) for x > knee, parameters c, d_per_mb; absent
                                                  // when no point lies beyond the knee
  std::vector<unimpp::SlowdownPoint> swap_table;  // the points beyond the knee, when the exponential's
                                                  // R² < table_below_r2: then function() interpolates them
  std::string swap_form;                          // "exponential", "table" or "" (no point beyond the knee)
  double total_squared_error = 0;                 // Σ (α - fit)² over all points, both parts

  unimpp::SlowdownFunction function() const;
};

// Points ascending in x (α: each point's median). Throws InputError (naming the fit) when a part has too few points:
// the linear part needs 3, the exponential part 3 whenever any point lies beyond the knee.
MemorySlowdownFitSummary fit_memory_slowdown(std::span<const double> occupied_mb, std::span<const double> alpha,
                                             const MemorySlowdownFitOptions& options);

}  // namespace hetperf::calibrate
