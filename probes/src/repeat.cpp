// Stopping rule for repeated measurements.
#include "hetperf/probes/repeat.hpp"

#include "hetperf/probes/cleanup.hpp"

#include <chrono>
#include <cmath>
#include <optional>
#include <string>

namespace hetperf::probes {

std::string RepeatOptions::validate() const {
  if (min_samples < 2) return "min_samples = " + std::to_string(min_samples) + ": must be at least 2";
  if (max_samples < min_samples) return "max_samples must be >= min_samples";
  if (!(target_relative_half_width > 0)) return "target relative half-width must be positive";
  if (!(time_cap_s > 0)) return "time cap must be positive";
  if (!(warmup_s >= 0 && warmup_s <= 3600)) return "warm-up time must be in [0, 3600] s";
  return {};
}

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool precise_enough(const SampleSummary& s, const RepeatOptions& options) {
  if (s.n < options.min_samples) return false;
  if (options.statistic == RepeatStatistic::kMean) return s.relative_half_width() <= options.target_relative_half_width;
  const auto [low, high] = median_ci95(s.samples);
  return (high - low) / 2 <= options.target_relative_half_width * std::abs(s.median);
}

SampleSummary repeat_until_precise(const RepeatOptions& options, const std::function<double()>& sample) {
  return repeat_interleaved(options, {sample}).front();
}

std::vector<SampleSummary> repeat_interleaved(const RepeatOptions& options,
                                              const std::vector<std::function<double()>>& samples) {
  const std::size_t k = samples.size();
  if (k == 0) return {};
  // Warm-up: whole rounds, at least `warmup` of them and for at least `warmup_s`.
  const double warm_start = monotonic_seconds();
  for (std::size_t round = 0; round < options.warmup || monotonic_seconds() - warm_start < options.warmup_s; ++round) {
    for (const auto& sample : samples) {
      throw_if_interrupted();
      sample();
    }
  }
  std::vector<std::vector<double>> values(k);
  std::vector<double> spent_s(k, 0);  // time in each figure's own samples (and its summaries)
  std::vector<std::optional<SampleSummary>> result(k);
  for (std::size_t open = k; open > 0;) {
    for (std::size_t i = 0; i < k; ++i) {
      if (result[i]) continue;
      throw_if_interrupted();
      const double t0 = monotonic_seconds();
      values[i].push_back(samples[i]());
      std::optional<SampleSummary> s;
      if (values[i].size() >= options.min_samples) {
        s = summarize(values[i]);
        s->precise = precise_enough(*s, options);
      }
      spent_s[i] += monotonic_seconds() - t0;
      if (s) {
        if (s->precise || values[i].size() >= options.max_samples || spent_s[i] >= options.time_cap_s) result[i] = s;
      } else if (spent_s[i] >= 4 * options.time_cap_s) {
        // Single samples far longer than the cap: report what we have rather than run for ever.
        result[i] = summarize(values[i]);
      }
      if (result[i]) --open;
    }
  }
  std::vector<SampleSummary> out;
  for (auto& r : result) out.push_back(std::move(*r));
  return out;
}

}  // namespace hetperf::probes
