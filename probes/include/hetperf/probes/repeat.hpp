// The probes' stopping rule: discard warm-up runs, then repeat a measurement until the 95% t-based
// confidence half-width is at most a target fraction of the mean (with a minimum sample count), or a
// time cap is reached, in which case the figure is flagged imprecise.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "hetperf/model/statistics.hpp"

namespace hetperf::probes {

struct RepeatOptions {
  std::size_t warmup = 1;              // runs discarded before sampling
  std::size_t min_samples = 10;        // never stop before this many samples
  std::size_t max_samples = 10000;     // never take more than this many
  double target_relative_half_width = 0.02;  // stop when half-width <= target * |mean|
  double time_cap_s = 30;              // stop (imprecise) after this much wall time of sampling

  // Empty when valid, else a message naming the option and the rule it breaks.
  std::string validate() const;
};

// True when `samples` meet the rule's precision target (min_samples reached and half-width small enough).
bool precise_enough(const SampleSummary& s, const RepeatOptions& options);

// Calls `sample` (which returns one measured value) per the rule; returns the summary with `precise` set.
// Throws Interrupted (cleanup.hpp) when SIGINT/SIGTERM arrived before a sample.
SampleSummary repeat_until_precise(const RepeatOptions& options, const std::function<double()>& sample);

// Progress inside a probe: what it measures now and the fraction of the probe done (0..1).
using StepCallback = std::function<void(const std::string& what, double fraction_done)>;

// Monotonic wall-clock seconds (probes only: the simulator never reads a clock).
double monotonic_seconds();

}  // namespace hetperf::probes
