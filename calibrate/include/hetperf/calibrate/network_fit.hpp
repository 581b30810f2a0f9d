// The message time t(s) = l + s/b (DPS paper section 4) per protocol regime: MPI libraries switch
// protocol with the message size (eager, then rendezvous), so the ping-pong curve is piecewise linear.
// The breakpoints are found by exact dynamic programming over the sorted sizes, and their number
// (0 to max_breakpoints) by the Bayesian information criterion on relative errors; a measured protocol
// switch (NetworkFitOptions::protocol_limits_bytes) is a breakpoint of its own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/calibrate/fit_summary.hpp"

namespace hetperf::calibrate {

struct NetworkFitOptions {
  std::string name;                    // prefix of the fits' names, e.g. "network a<->b"
  int max_breakpoints = 3;             // 0..3: at most max_breakpoints + 1 regimes
  std::size_t min_segment_points = 3;  // points per regime, >= 3 (a line plus a residual variance)
  double breakpoint_parameters = 6;    // what one breakpoint costs in the criterion, in parameters
                                       // (> 0): its position is searched among all sizes, which buys
                                       // more fit than one free parameter does. Plain BIC (1) split
                                       // 20% of simulated single-regime curves (30 sizes, 5% noise),
                                       // 3 split 1.4%, 6 none of 500, while still placing a 40 us
                                       // protocol jump right in 498 of 500 (docs/calibration.md)
  double relative_error_floor = 1e-6;  // relative residuals below this are not told apart (keeps the
                                       // criterion finite on noise-free data), > 0
  // Measured protocol switches (the eager limits of the ping-pong's busy sends): a regime ends at the
  // largest size at most each limit. Known, not searched, such a breakpoint costs the criterion only
  // its line's two parameters and stands without the significance test; a limit that would leave
  // fewer than min_segment_points sizes on a side is ignored. Noisy small sizes otherwise made one
  // line over every size the criterion's choice, 17-20% fast for the largest messages.
  std::vector<double> protocol_limits_bytes = {};
  // A size whose time lies more than outlier_threshold robust standard deviations (1.4826 · the
  // median absolute deviation of the regime's relative residuals, at least outlier_scale_floor) from
  // its regime's line is left out of that line, one size at a time and at most one in four, in
  // regimes of eight sizes or more. On the testbed the 32 KiB ping-pong median flips between 1.8 and 3.1 ms from one
  // probe to the next (a token bucket's burst); kept, it moved the line of the sizes from 8 KiB to
  // 4 MiB to 100.6 Mbit/s in one recording and 94.9 in another. 0 keeps every size.
  double outlier_threshold = 5;
  double outlier_scale_floor = 0.01;

  bool is_valid(std::string* error) const;
};

struct NetworkOutlier {
  std::uint64_t size_bytes = 0;
  double relative_residual = 0;  // (measured - line) / measured, the line fitted without it
  double robust_sd = 0;          // the regime's robust standard deviation of relative residuals then
};

struct NetworkRegime {
  std::uint64_t min_size_bytes = 0;      // first measured size of the regime
  std::uint64_t max_size_bytes = 0;      // last measured size of the regime
  double latency_s = 0;                  // l of the regime's line (intercept)
  double seconds_per_byte = 0;           // 1/b of the regime's line (LogGP's G), >= 0
  bool flat = false;                     // the fitted slope was negative: refitted as t = l (slope 0)
  FitSummary fit;                        // parameters latency_s, seconds_per_byte; R² of the regime
  std::vector<NetworkOutlier> outliers;  // sizes of the range left out of the line

  // Neither flat nor with a slope whose 95% interval reaches 0: the line's R² means something.
  bool slope_meaningful() const { return !(flat || fit.parameter("seconds_per_byte").ci95_low <= 0); }
};

struct NetworkFitSummary {
  std::vector<NetworkRegime> regimes;  // ascending sizes, at least one
  FitSummary overall;                  // a single line t = l + s/b over every point
  double piecewise_r2 = 0;             // R² of the piecewise model over every point
  double bic = 0;                      // of the chosen segmentation
  std::string selection;               // how the number of regimes was chosen

  // t(s) by the regime whose size range holds s (the first below, the last above).
  double time_s(double size_bytes) const;
};

// Sizes ascending and > 0, times > 0 (InputError otherwise, naming the point). Needs at least
// min_segment_points points.
// A regime as the profile records it (network.fit.regimes[*]): its fit, size range, whether it is flat
// or its slope's interval holds 0 (then its R² means nothing), and the sizes its line left out.
nlohmann::json to_json(const NetworkRegime& regime, double outlier_threshold);

NetworkFitSummary fit_network(std::span<const double> size_bytes, std::span<const double> time_s,
                              const NetworkFitOptions& options);

}  // namespace hetperf::calibrate
