// Tests for model/src/statistics.cpp: summaries and Student's t quantiles against known values.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "hetperf/model/json_node.hpp"
#include "hetperf/model/statistics.hpp"

using namespace hetperf;

TEST_CASE("model: statistics: t quantiles match the standard table and approach the normal quantile") {
  CHECK(t_quantile_975(1) == Approx(12.7062).epsilon(1e-4));
  CHECK(t_quantile_975(9) == Approx(2.2622).epsilon(1e-4));
  CHECK(t_quantile_975(30) == Approx(2.0423).epsilon(1e-4));
  // Beyond the table: t(0.975, 40) = 2.0211, t(0.975, 120) = 1.9799, t(0.975, 1000) = 1.9623.
  CHECK(t_quantile_975(40) == Approx(2.0211).epsilon(2e-4));
  CHECK(t_quantile_975(120) == Approx(1.9799).epsilon(2e-4));
  CHECK(t_quantile_975(1000) == Approx(1.9623).epsilon(2e-4));
  // Boost.Math's quantiles agree with the exact values to 1e-9 (t(0.975, 1) = tan(0.475 π)).
  CHECK(t_quantile_975(1) == Approx(12.706204736174698).epsilon(1e-9));
  CHECK(t_quantile_975(10) == Approx(2.2281388519649385).epsilon(1e-9));
}

TEST_CASE("model: statistics: the one median and the nearest-rank quantile") {
  CHECK(median({}) == 0);
  CHECK(median({3}) == 3);
  CHECK(median({5, 1, 3}) == 3);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(21 - i);  // 20 .. 1
  CHECK(quantile_nearest_rank(v, 0.95) == 19);        // ceil(0.95 · 20) = 19th smallest
  CHECK(quantile_nearest_rank(v, 0) == 1);
  CHECK(quantile_nearest_rank(v, 1) == 20);
}

TEST_CASE("model: statistics: the shorth's median follows the densest half, not a heavy right tail") {
  CHECK(shorth_median({}) == 0);
  CHECK(shorth_median({3}) == 3);
  CHECK(shorth_median({1, 3}) == 2);  // h = 2: both
  // The whole-run ratios of 2-rank LU calibration runs on this VM (docs/calibration.md): 10 of 18
  // stalled by preemption; the median is a stalled run's, the shorth's the undisturbed runs'.
  const std::vector<double> ratios = {1.06, 1.09, 1.10, 1.12, 1.12, 1.13, 1.17, 1.20, 1.73,
                                      2.10, 2.45, 2.50, 2.52, 2.96, 3.12, 3.20, 3.30, 5.34};
  CHECK(median(ratios) == Approx(1.915));
  CHECK(shorth_median(ratios) == Approx(1.125));  // the median of the 10 values 1.06 .. 2.10
  // Unsorted input: the half around the cluster.
  CHECK(shorth_median({5, 1, 3, 2.9, 3.1}) == 3);
  // Equally short halves: the median of their medians (evenly spaced: the middle).
  CHECK(shorth_median({1.0, 1.1, 1.2}) == Approx(1.1));
  CHECK(shorth_median({1, 2, 3, 4, 5}) == 3);
  CHECK(shorth_median({1, 2, 10, 11}) == 6);  // {1, 2, 10} and {2, 10, 11}: no densest half
}

TEST_CASE("model: statistics: MSER-5 discards the start-up transient and nothing of a stationary series") {
  // Batches of 5 with means 4, 0, 0, 2: the squared standard errors are 11/16, (24/9)/9 and 2/4 for
  // d = 0, 1, 2 (d at most half the batches): one batch goes.
  std::vector<double> series;
  for (double z : {4.0, 0.0, 0.0, 2.0}) series.insert(series.end(), 5, z);
  CHECK(mser5_truncation(series) == 5);
  // A partial last batch is left out of the search, and under two batches nothing is cut.
  series.push_back(100);
  CHECK(mser5_truncation(series) == 5);
  CHECK(mser5_truncation({9, 1, 1, 1, 1, 1, 1, 1, 1}) == 0);
  CHECK(mser5_truncation({}) == 0);

  // A decaying start (as the rounds just after a step of occupation) over seeded noise: the cut
  // covers most of the decay and never more than half the series.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1.0, 0.2);
  std::vector<double> settling;
  for (int i = 0; i < 200; ++i) settling.push_back(noise(rng) + 4 * std::exp(-i / 10.0));
  const std::size_t cut = mser5_truncation(settling);
  CHECK(cut >= 20);
  CHECK(cut <= 100);
  // Stationary noise: a cut, if any, is short.
  std::vector<double> flat;
  for (int i = 0; i < 200; ++i) flat.push_back(noise(rng));
  CHECK(mser5_truncation(flat) <= 40);
  // The same series twice gives the same cut (no hidden state), and so does the series on a large
  // offset (the sums are centred).
  CHECK(mser5_truncation(settling) == cut);
  std::vector<double> shifted = settling;
  for (double& v : shifted) v += 1e9;
  CHECK(mser5_truncation(shifted) == cut);
}

TEST_CASE("model: statistics: percentiles give the median, p90, p99 by nearest rank and the max") {
  Percentiles none = percentiles({});
  CHECK((none.median == 0 && none.p90 == 0 && none.p99 == 0 && none.max == 0));
  Percentiles three = percentiles({3, 1, 2});
  CHECK(three.median == 2);
  CHECK(three.p90 == 3);  // ceil(0.9 · 3) = 3rd smallest
  CHECK(three.p99 == 3);
  CHECK(three.max == 3);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // 100 .. 1
  Percentiles hundred = percentiles(v);
  CHECK(hundred.median == 50.5);
  CHECK(hundred.p90 == 90);
  CHECK(hundred.p99 == 99);
  CHECK(hundred.max == 100);
  // Ten values: p99's rank is ceil(9.9) = 10, the largest; ties count each value.
  Percentiles ten = percentiles({1, 1, 1, 1, 1, 1, 1, 1, 7, 9});
  CHECK(ten.median == 1);
  CHECK(ten.p90 == 7);
  CHECK(ten.p99 == 9);
  CHECK(ten.max == 9);
}

TEST_CASE("model: statistics: summary of a known sample gives its mean, median, deviation and interval") {
  SampleSummary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  CHECK(s.n == 8);
  CHECK(s.mean == Approx(5.0));
  CHECK(s.median == Approx(4.5));
  CHECK(s.stddev == Approx(std::sqrt(32.0 / 7.0)));
  double h = 2.3646 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0);
  CHECK(s.ci95_low == Approx(5.0 - h).epsilon(1e-4));
  CHECK(s.ci95_high == Approx(5.0 + h).epsilon(1e-4));
  CHECK(s.relative_half_width() == Approx(h / 5.0).epsilon(1e-4));
  CHECK(s.samples.size() == 8);
}

TEST_CASE("model: statistics: a single sample has a zero-width interval") {
  SampleSummary s = summarize({3.5});
  CHECK(s.mean == 3.5);
  CHECK(s.median == 3.5);
  CHECK(s.stddev == 0);
  CHECK(s.ci95_low == 3.5);
  CHECK(s.ci95_high == 3.5);
}

TEST_CASE("model: statistics: a summary round-trips through JSON") {
  SampleSummary s = summarize({1.5, 2.5, 2.0, 3.0});
  s.precise = true;
  nlohmann::json j = to_json(s);
  SampleSummary back = sample_summary_from_json(JsonNode(j, "mem"));
  CHECK(back.n == s.n);
  CHECK(back.mean == s.mean);
  CHECK(back.median == s.median);
  CHECK(back.stddev == s.stddev);
  CHECK(back.ci95_low == s.ci95_low);
  CHECK(back.ci95_high == s.ci95_high);
  CHECK(back.precise);
  CHECK(back.samples == s.samples);
}

TEST_CASE("model: statistics: the chi-squared upper tail matches the standard table") {
  // χ²(10): the 0.99 quantile is 23.209, the median 9.342 (Abramowitz and Stegun, Table 26.8).
  CHECK(chi_squared_upper_tail(23.209, 10) == Approx(0.01).epsilon(1e-3));
  CHECK(chi_squared_upper_tail(9.342, 10) == Approx(0.5).epsilon(1e-3));
  CHECK(chi_squared_upper_tail(0, 3) == 1);
  // χ²(2) is exponential with mean 2: P(X >= x) = e^(-x/2).
  CHECK(chi_squared_upper_tail(4, 2) == Approx(std::exp(-2.0)));
}

TEST_CASE("model: statistics: the median's interval uses the order statistics of the sign test") {
  // Standard table of distribution-free 95% median intervals: n = 10 -> (x2, x9), n = 20 -> (x6, x15).
  std::vector<double> ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(median_ci95(ten) == std::pair<double, double>{2, 9});
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  CHECK(median_ci95(twenty) == std::pair<double, double>{6, 15});
  // Too few samples for 95%: the whole range.
  CHECK(median_ci95({3, 1, 2}) == std::pair<double, double>{1, 3});
  CHECK(median_ci95({}) == std::pair<double, double>{0, 0});
}

TEST_CASE("model: statistics: the median's interval covers the true median at least 95% of the time") {
  // Exponential samples (skewed, like run times on a shared machine): the true median is ln 2.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp1(1.0);
  int covered = 0;
  const int draws = 4000;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> v(25);
    for (double& x : v) x = exp1(rng);
    auto [lo, hi] = median_ci95(v);
    covered += lo <= std::log(2.0) && std::log(2.0) <= hi;
  }
  // n = 25: the interval (x8, x18) has exact coverage 95.7%; 4000 draws put the estimate within ±0.8%.
  CHECK(covered >= 0.945 * draws);
  CHECK(covered <= 0.97 * draws);
}
