// The probes' stopping rule: discard warm-up runs, then repeat a measurement until the 95% t-based
// confidence half-width is at most a target fraction of the mean (with a minimum sample count), or a
// time cap is reached, in which case the figure is flagged imprecise. Several figures can be sampled
// in interleaved rounds (repeat_interleaved), each under the same rule.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "hetperf/model/statistics.hpp"

namespace hetperf::probes {

// Which interval the precision target applies to.
enum class RepeatStatistic {
  kMean,    // the Student-t 95% interval of the mean, relative to the mean
  kMedian,  // the distribution-free 95% interval of the median (median_ci95), relative to the median:
            // for heavy-tailed samples (page faults, reclaim bursts) where the median is the figure
};

struct RepeatOptions {
  std::size_t warmup = 1;                    // runs discarded before sampling
  double warmup_s = 0;                       // and keep discarding runs until this much wall time has passed
                                             // (a processor or device that needs time to reach its steady state)
  std::size_t min_samples = 10;              // never stop before this many samples
  std::size_t max_samples = 10000;           // never take more than this many
  double target_relative_half_width = 0.02;  // stop when half-width <= target * |mean|
  double time_cap_s = 30;                    // stop (imprecise) after this much wall time of sampling
  RepeatStatistic statistic = RepeatStatistic::kMean;  // the interval that must be tight

  // Empty when valid, else a message naming the option and the rule it breaks.
  std::string validate() const;
};

// True when `samples` meet the rule's precision target (min_samples reached and the half-width of the
// chosen statistic's interval small enough).
bool precise_enough(const SampleSummary& s, const RepeatOptions& options);

// Calls `sample` (which returns one measured value) per the rule; returns the summary with `precise` set.
// Throws Interrupted (cleanup.hpp) when SIGINT/SIGTERM arrived before a sample.
SampleSummary repeat_until_precise(const RepeatOptions& options, const std::function<double()>& sample);

// Several figures sampled in rounds, one sample of each per round (warm-up rounds first), so that the
// slow phases of a shared device or host fall on all of them alike and each figure spans the whole
// sampling period instead of a slice of it. Each figure follows the rule on its own: it leaves the
// rounds once precise, or once the time spent in its own samples reaches time_cap_s (imprecise).
// Returns one summary per figure, in order. Throws Interrupted like repeat_until_precise.
std::vector<SampleSummary> repeat_interleaved(const RepeatOptions& options,
                                              const std::vector<std::function<double()>>& samples);

// Progress inside a probe: what it measures now and the fraction of the probe done (0..1).
using StepCallback = std::function<void(const std::string& what, double fraction_done)>;

// Monotonic wall-clock seconds (probes only: the simulator never reads a clock).
double monotonic_seconds();

}  // namespace hetperf::probes
