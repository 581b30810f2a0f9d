// Summary statistics of repeated samples, with the 95% confidence interval of the mean
// (Student's t), as the probes report every figure.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

struct SampleSummary {
  std::size_t n = 0;
  double mean = 0;
  double median = 0;
  double stddev = 0;    // sample standard deviation (n - 1 denominator)
  double ci95_low = 0;  // mean -/+ t(0.975, n-1) * stddev / sqrt(n)
  double ci95_high = 0;
  bool precise = false;         // the stopping rule reached its target half-width (set by the caller)
  std::vector<double> samples;  // raw samples, in the order measured (warm-up excluded)

  double half_width() const { return (ci95_high - ci95_low) / 2; }
  // Half-width relative to the mean; infinity for a zero mean.
  double relative_half_width() const;
};

// Two-sided 95% quantile of Student's t distribution with `df` degrees of freedom, t(0.975, df), from
// Boost.Math. df >= 1.
double t_quantile_975(std::size_t df);

// The one median of the tree: the middle sample, or the mean of the two middle ones; 0 for none.
double median(std::vector<double> samples);
// The median of the shortest half: of the ⌊n/2⌋ + 1 consecutive order statistics spanning the
// shortest interval, their median (the shorth, Andrews et al. 1972: a mode-seeking location that a
// right tail of up to half the samples does not move); with several halves equally short, the
// median of their medians. 0 for none.
double shorth_median(std::vector<double> samples);
// The p-quantile (p in [0, 1]) by nearest rank: the smallest sample with at least a fraction p of the
// samples at or below it; 0 for none.
double quantile_nearest_rank(std::vector<double> samples, double p);

// MSER-5 (White 1997, "An effective truncation heuristic for bias reduction in simulation output";
// the variant Hoad, Robinson and Davies 2010 recommend): how many of the first values of a series in
// the order measured to discard as the start-up transient. The series is cut into batches of 5
// (a last partial batch is left out of the search); the truncation is the d batches, d at most half of
// them, that minimise the squared standard error of the mean of the batches that remain,
// Σ_{j>d} (Z_j − Z̄_d)² / (m − d)². Returns 5·d (0 for fewer than 2 batches).
std::size_t mser5_truncation(const std::vector<double>& series);

// The spread of a set of outputs (response times, waits, slowdowns) as the summaries report it: the
// median, the 90th and 99th percentiles by nearest rank (quantile_nearest_rank) and the largest value.
// Exact: it needs every value in memory (8 bytes each; 80 MB for ten million). All 0 for no values.
struct Percentiles {
  double median = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
};
Percentiles percentiles(std::vector<double> values);

// Summarises `samples` (at least one). With one sample the interval is [mean, mean] and stddev 0.
SampleSummary summarize(std::vector<double> samples);

// Distribution-free 95% interval of the median of `samples` from order statistics: [x_(j), x_(n+1-j)]
// with j the largest rank such that P(Binomial(n, 1/2) < j) <= 0.025 (Boost.Math's binomial), so it covers the
// true median with probability >= 95% whatever the distribution. With fewer than 6 samples no
// such j exists and the interval is [min, max]. Empty samples: {0, 0}.
std::pair<double, double> median_ci95(std::vector<double> samples);

// P(X >= x) for X ~ χ²(dof) (Boost.Math's chi_squared): the p-value of a χ² statistic. dof > 0, x >= 0.
double chi_squared_upper_tail(double x, double dof);

// Summary JSON: {"n", "mean", "median", "stddev", "ci95": [low, high], "precise", "samples": [...]}.
nlohmann::json to_json(const SampleSummary& s, bool with_samples = true);

class JsonNode;
SampleSummary sample_summary_from_json(const JsonNode& node);

}  // namespace hetperf
