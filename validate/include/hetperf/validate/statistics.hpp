// What a validation's runs say of its predictions: bias with its interval, the shares within ±5% and
// ±10%, coverage of the 80% intervals, per run and per held-out axis.
//
//   Statistics s = statistics(runs, seed);  // runs with measured samples and predicted quantiles
//   std::printf("bias %+.1f%% [%+.1f, %+.1f]\n", 100 * s.bias, 100 * s.bias_low, 100 * s.bias_high);
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/validate/matrix.hpp"

namespace hetperf::validate {

// Figures that separate model bias from machine noise, over configurations with several
// measured runs and a predicted distribution each:
//   signed error of a configuration  e = (predicted median − measured median) / measured median
//   bias                             the median of e, with a bootstrap 95% interval (configurations
//                                    resampled, percentile interval, seeded)
//   within_5 / within_10             shares of configurations with |e| ≤ 5% / 10%
//   coverage                         share of single measured runs inside their predicted 80% interval
//   median_width                     median of (p90 − p10) / predicted median
//   noise_floor                      median over configurations of the median |run − median| / median
//                                    of its runs: how far a single run typically lands from its own median
struct Statistics {
  std::size_t configurations = 0, runs = 0;
  double bias = 0, bias_low = 0, bias_high = 0;
  double within_5 = 0, within_10 = 0;
  double coverage = 0, median_width = 0, noise_floor = 0;
};
Statistics statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed = 1, int resamples = 2000);

// statistics() per axis over the runs held out along it, and "calibrated regime" over those along none.
std::map<std::string, Statistics> axis_statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed = 1);
nlohmann::json to_json(const Statistics& s);

struct Accuracy {
  std::size_t runs = 0;
  double within_5 = 0, within_10 = 0;  // shares of runs with |error| <= 5% and <= 10%
  double mean_abs_error = 0, max_abs_error = 0;
  std::string worst_run;
  // The noise floor: the median spread of the runs' own repeats, and the share of runs whose
  // repeats alone span more than ±5% of their median (a spread above 10%); 0 with single samples.
  double median_spread = 0, spread_over_10 = 0;
};
Accuracy accuracy(const std::vector<ValidationRun>& runs);

}  // namespace hetperf::validate
