// Summary statistics, medians and quantiles, and the 95% intervals of the probes' figures (Boost.Math
// for the t and binomial distributions).
#include "hetperf/model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf {

double SampleSummary::relative_half_width() const {
  if (mean == 0) return std::numeric_limits<double>::infinity();
  return half_width() / std::fabs(mean);
}

double t_quantile_975(std::size_t df) {
  HETPERF_CHECK(df >= 1, "t distribution needs at least one degree of freedom");
  const boost::math::students_t t(static_cast<double>(df));
  return boost::math::quantile(boost::math::complement(t, 0.025));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2;
}

std::size_t mser5_truncation(const std::vector<double>& series) {
  constexpr std::size_t kBatch = 5;
  const std::size_t m = series.size() / kBatch;
  if (m < 2) return 0;
  std::vector<double> z(m);
  for (std::size_t j = 0; j < m; ++j) {
    z[j] = std::accumulate(series.begin() + static_cast<std::ptrdiff_t>(j * kBatch),
                           series.begin() + static_cast<std::ptrdiff_t>((j + 1) * kBatch), 0.0) /
           kBatch;
  }
  // Centred on the batches' mean, so that the running sums below lose nothing to a large offset.
  const double centre = std::accumulate(z.begin(), z.end(), 0.0) / static_cast<double>(m);
  // From the last batch back: the sums over batches j..m-1 give each cut's squared standard error.
  std::size_t best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  double sum = 0, sum_sq = 0;
  for (std::size_t j = m; j-- > 0;) {
    const double v = z[j] - centre;
    sum += v;
    sum_sq += v * v;
    if (j > m / 2) continue;
    const double k = static_cast<double>(m - j);
    const double value = std::max(0.0, sum_sq - sum * sum / k) / (k * k);
    if (value <= best_value) best_value = value, best = j;  // a tie goes to the shorter cut
  }
  return best * kBatch;
}

double shorth_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2 + 1, windows = v.size() - h + 1;
  double shortest = v[h - 1] - v[0];
  for (std::size_t i = 1; i < windows; ++i) shortest = std::min(shortest, v[i + h - 1] - v[i]);
  // Halves equally short (to rounding: 1.1 − 1.0 and 1.2 − 1.1 differ in the last bits) all count:
  // the median of their medians, so evenly spaced samples give their middle.
  std::vector<double> centres;
  for (std::size_t i = 0; i < windows; ++i) {
    if (v[i + h - 1] - v[i] <= shortest + 1e-9 * std::fabs(shortest) + 1e-300) {
      centres.push_back(
          median({v.begin() + static_cast<std::ptrdiff_t>(i), v.begin() + static_cast<std::ptrdiff_t>(i + h)}));
    }
  }
  return median(centres);
}

double quantile_nearest_rank(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size())));
  auto at = v.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
  std::nth_element(v.begin(), at, v.end());
  return *at;
}

Percentiles percentiles(std::vector<double> values) {
  Percentiles p;
  if (values.empty()) return p;
  p.max = *std::max_element(values.begin(), values.end());
  p.p99 = quantile_nearest_rank(values, 0.99);
  p.p90 = quantile_nearest_rank(values, 0.90);
  p.median = median(std::move(values));
  return p;
}

SampleSummary summarize(std::vector<double> samples) {
  HETPERF_CHECK(!samples.empty(), "cannot summarise zero samples");
  SampleSummary s;
  s.n = samples.size();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  s.median = median(samples);
  if (s.n > 1) {
    double ss = 0;
    for (double x : samples) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    double h = t_quantile_975(s.n - 1) * s.stddev / std::sqrt(static_cast<double>(s.n));
    s.ci95_low = s.mean - h;
    s.ci95_high = s.mean + h;
  } else {
    s.ci95_low = s.ci95_high = s.mean;
  }
  s.samples = std::move(samples);
  return s;
}

std::pair<double, double> median_ci95(std::vector<double> samples) {
  if (samples.empty()) return {0, 0};
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  // The largest j with P(B <= j - 1) <= 0.025 for B ~ Binomial(n, 1/2); 0: none qualifies.
  const boost::math::binomial b(static_cast<double>(n), 0.5);
  std::size_t j = 0;
  while (j < n && boost::math::cdf(b, static_cast<double>(j)) <= 0.025) ++j;
  if (j == 0) return {samples.front(), samples.back()};
  return {samples[j - 1], samples[n - j]};
}

nlohmann::json to_json(const SampleSummary& s, bool with_samples) {
  nlohmann::json j = {{"n", s.n},
                      {"mean", s.mean},
                      {"median", s.median},
                      {"stddev", s.stddev},
                      {"ci95", {s.ci95_low, s.ci95_high}},
                      {"precise", s.precise}};
  if (with_samples) j["samples"] = s.samples;
  return j;
}

SampleSummary sample_summary_from_json(const JsonNode& node) {
  node.known_fields({"n", "mean", "median", "stddev", "ci95", "precise", "samples"});
  SampleSummary s;
  s.n = static_cast<std::size_t>(node.integer("n", 1, 1'000'000'000));
  s.mean = node.number("mean");
  s.median = node.number_or("median", s.mean);
  s.stddev = node.number_or("stddev", 0, Range::kNonNegative);
  std::vector<JsonNode> ci = node.array("ci95");
  if (ci.size() != 2) node.field("ci95").fail("an array [low, high]");
  s.ci95_low = ci[0].as_number();
  s.ci95_high = ci[1].as_number();
  if (s.ci95_low > s.ci95_high) node.field("ci95").fail("an array [low, high] with low <= high");
  s.precise = node.boolean_or("precise", false);
  if (auto samples = node.optional("samples")) {
    for (const JsonNode& x : samples->items()) s.samples.push_back(x.as_number());
  }
  return s;
}

double chi_squared_upper_tail(double x, double dof) {
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), std::max(0.0, x)));
}

}  // namespace hetperf
