// Stopping rule for repeated measurements.
#include "hetperf/probes/repeat.hpp"

#include "hetperf/probes/cleanup.hpp"

#include <chrono>
#include <cmath>
#include <string>

namespace hetperf::probes {

std::string RepeatOptions::validate() const {
  if (min_samples < 2) return "min_samples = " + std::to_string(min_samples) + ": must be at least 2";
  if (max_samples < min_samples) return "max_samples must be >= min_samples";
  if (!(target_relative_half_width > 0)) return "target relative half-width must be positive";
  if (!(time_cap_s > 0)) return "time cap must be positive";
  return {};
}

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool precise_enough(const SampleSummary& s, const RepeatOptions& options) {
  return s.n >= options.min_samples && s.relative_half_width() <= options.target_relative_half_width;
}

SampleSummary repeat_until_precise(const RepeatOptions& options, const std::function<double()>& sample) {
  for (std::size_t i = 0; i < options.warmup; ++i) {
    throw_if_interrupted();
    sample();
  }
  std::vector<double> values;
  const double start = monotonic_seconds();
  for (;;) {
    throw_if_interrupted();
    values.push_back(sample());
    if (values.size() >= options.min_samples) {
      SampleSummary s = summarize(values);
      if (precise_enough(s, options)) {
        s.precise = true;
        return s;
      }
      if (values.size() >= options.max_samples || monotonic_seconds() - start >= options.time_cap_s) return s;
    } else if (monotonic_seconds() - start >= 4 * options.time_cap_s) {
      // A single sample far longer than the cap: report what we have rather than run for ever.
      return summarize(values);
    }
  }
}

}  // namespace hetperf::probes
