// The redistribution cost of a malleable job (ReSHAPE paper section 3.2: "ReSHAPE ... records data
// redistribution times"), fitted to measured resizes: t = l + s/b with s = bytes moved / min(p, q),
// the bytes each kept rank exchanges (the batch scheduler's model, docs/scheduling.md).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_summary.hpp"

namespace hetperf::calibrate {

struct RedistributionSample {
  double bytes = 0;    // moved in all, > 0
  int from_ranks = 0;  // ranks before, >= 1
  int to_ranks = 0;    // ranks after, >= 1, != from_ranks
  double time_s = 0;   // measured, > 0
  std::string source;  // where it was measured, for messages ("real.json, after iteration 2")
};

struct RedistributionFitSummary {
  double latency_s = 0;              // l; >= 0 (a negative intercept is refitted through the origin)
  double bandwidth_bytes_per_s = 0;  // b
  FitSummary fit;                    // parameters latency_s and seconds_per_byte (or seconds_per_byte alone)
};

// Repeats of one resize (equal bytes and rank counts) enter as their median; at least three different
// resizes with at least two distinct s, InputError naming the sample otherwise. Least squares on
// relative errors, so that small and large resizes weigh alike.
RedistributionFitSummary fit_redistribution(std::span<const RedistributionSample> samples, const std::string& name);

}  // namespace hetperf::calibrate
