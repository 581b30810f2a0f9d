// Summary statistics and Student's t quantiles for the probes' 95% confidence intervals.
#include "hetperf/model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf {

double SampleSummary::relative_half_width() const {
  if (mean == 0) return std::numeric_limits<double>::infinity();
  return half_width() / std::fabs(mean);
}

double t_quantile_975(std::size_t df) {
  HETPERF_CHECK(df >= 1, "t distribution needs at least one degree of freedom");
  // t(0.975, df) for df = 1..30 (standard tables).
  static constexpr double kTable[30] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060,
                                        2.2622,  2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199,
                                        2.1098,  2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
                                        2.0595,  2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df <= 30) return kTable[df - 1];
  // Cornish-Fisher expansion of the t quantile around the normal quantile z = 1.959964.
  const double z = 1.959963984540054, n = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n);
}

SampleSummary summarize(std::vector<double> samples) {
  HETPERF_CHECK(!samples.empty(), "cannot summarise zero samples");
  SampleSummary s;
  s.n = samples.size();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.median = s.n % 2 ? sorted[s.n / 2] : (sorted[s.n / 2 - 1] + sorted[s.n / 2]) / 2;
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
  // Cumulative Binomial(n, 1/2) from the lower tail, in logs so that large n does not underflow.
  std::size_t j = 0;  // 1-based rank of the lower end; 0: none qualifies
  double cumulative = 0;
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  for (std::size_t i = 0; i < n; ++i) {
    const double log_pmf = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                           std::lgamma(static_cast<double>(n - i) + 1) + log_half_n;
    // P(B < i + 1) = P(B <= i)
    cumulative += std::exp(log_pmf);
    if (cumulative <= 0.025) j = i + 1;
    else break;
  }
  if (j == 0) return {samples.front(), samples.back()};
  return {samples[j - 1], samples[n - j]};
}

nlohmann::json to_json(const SampleSummary& s, bool with_samples) {
  nlohmann::json j = {{"n", s.n},           {"mean", s.mean},
                      {"median", s.median}, {"stddev", s.stddev},
                      {"ci95", {s.ci95_low, s.ci95_high}}, {"precise", s.precise}};
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

}  // namespace hetperf
