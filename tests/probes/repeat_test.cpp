// Tests of the stopping rule (probes/src/repeat.cpp) against values worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/repeat.hpp"

using namespace hetperf;
using namespace hetperf::probes;

TEST_CASE("probes: repeat stops at the minimum sample count when samples agree", "[repeat]") {
  RepeatOptions o;
  o.warmup = 2;
  int calls = 0;
  SampleSummary s = repeat_until_precise(o, [&] {
    ++calls;
    return calls <= 2 ? 1000.0 : 5.0;  // the warm-up values must be discarded
  });
  CHECK(calls == 12);
  CHECK(s.n == 10);
  CHECK(s.mean == Approx(5.0));
  CHECK(s.precise);
  for (double v : s.samples) CHECK(v == 5.0);
}

TEST_CASE("probes: repeat continues until the t-based half-width is within the target", "[repeat]") {
  // Alternating 9, 11: mean 10, sd = sqrt(n/(n-1)) for even n; half-width t(0.975,n-1)*sd/sqrt(n).
  // The rule needs t*sd/sqrt(n) <= 0.2 (2% of 10): n = 98 gives 1.9847*1.00514/9.8995 = 0.2015, n = 100
  // gives 1.9842*1.00504/10 = 0.19942, so the rule stops at n = 100.
  RepeatOptions o;
  o.warmup = 0;
  o.time_cap_s = 60;
  int k = 0;
  SampleSummary s = repeat_until_precise(o, [&] { return (k++ % 2) ? 11.0 : 9.0; });
  CHECK(s.precise);
  CHECK(s.mean == Approx(10.0).epsilon(0.01));
  CHECK(s.relative_half_width() <= 0.02);
  // The sample before the last did not meet the rule (stopping was not late).
  std::vector<double> fewer(s.samples.begin(), s.samples.end() - 1);
  CHECK(summarize(fewer).relative_half_width() > 0.02);
  CHECK(s.n == 100);
  CHECK(s.stddev == Approx(std::sqrt(100.0 / 99)));
  double expected_half = t_quantile_975(99) * s.stddev / std::sqrt(100.0);
  CHECK(s.half_width() == Approx(expected_half).epsilon(1e-9));
}

TEST_CASE("probes: repeat flags a figure imprecise when the time cap is hit", "[repeat]") {
  RepeatOptions o;
  o.warmup = 0;
  o.time_cap_s = 0.05;
  int k = 0;
  SampleSummary s = repeat_until_precise(o, [&] { return (k++ % 2) ? 1.0 : 100.0; });
  CHECK_FALSE(s.precise);
  CHECK(s.n >= o.min_samples);
}

TEST_CASE("probes: repeat honours max_samples and validates its options", "[repeat]") {
  RepeatOptions o;
  o.warmup = 0;
  o.min_samples = 10;
  o.max_samples = 15;
  int k = 0;
  SampleSummary s = repeat_until_precise(o, [&] { return (k++ % 2) ? 1.0 : 100.0; });
  CHECK(s.n == 15);
  CHECK_FALSE(s.precise);
  RepeatOptions bad;
  bad.min_samples = 1;
  CHECK_THAT(bad.validate(), Catch::Contains("min_samples"));
  CHECK(RepeatOptions{}.validate().empty());
}

TEST_CASE("probes: repeat stops with Interrupted once a signal has arrived", "[repeat]") {
  RepeatOptions o;
  int calls = 0;
  set_interrupted(true);
  CHECK_THROWS_AS(repeat_until_precise(o, [&] { return static_cast<double>(++calls); }), Interrupted);
  set_interrupted(false);
  CHECK(calls == 0);
}

TEST_CASE("probes: interleaved figures are sampled in rounds and each stops by the rule on its own", "[repeat]") {
  // Figure 0 is constant: precise at the 10th sample. Figure 1 alternates 9, 11: precise at n = 100
  // (worked out in the test above). One warm-up round first; figure 1 then runs alone.
  RepeatOptions o;
  o.warmup = 1;
  o.time_cap_s = 60;
  std::vector<int> order;
  int k = 0;
  auto s = repeat_interleaved(o, {[&] {
                                    order.push_back(0);
                                    return 5.0;
                                  },
                                  [&] {
                                    order.push_back(1);
                                    return (k++ % 2) ? 9.0 : 11.0;
                                  }});
  REQUIRE(s.size() == 2);
  CHECK(s[0].n == 10);
  CHECK(s[0].precise);
  CHECK(s[1].n == 100);
  CHECK(s[1].precise);
  CHECK(s[1].mean == Approx(10.0));
  // Warm-up round, then 10 rounds of both, then figure 1 alone.
  REQUIRE(order.size() == 2 + 10 * 2 + 90);
  for (std::size_t i = 0; i < 22; ++i) CHECK(order[i] == static_cast<int>(i % 2));
  for (std::size_t i = 22; i < order.size(); ++i) CHECK(order[i] == 1);
  // The warm-up value of figure 1 (11) is discarded: its samples start with 9.
  CHECK(s[1].samples.front() == 9.0);
}

TEST_CASE("probes: warm-up continues until warmup_s has passed and its runs are discarded", "[repeat]") {
  RepeatOptions o;
  o.warmup = 1;
  o.warmup_s = 0.05;
  o.min_samples = 3;
  const double start = monotonic_seconds();
  std::vector<double> called_at;
  SampleSummary s = repeat_until_precise(o, [&] {
    called_at.push_back(monotonic_seconds() - start);
    return called_at.back() < 0.05 ? 1000.0 : 1.0;  // anything run before 50 ms is warm-up
  });
  CHECK(s.n == 3);
  CHECK(s.mean == 1.0);
  CHECK(called_at.size() > 3);  // the warm-up ran more than once
  CHECK(called_at[called_at.size() - 3] >= 0.05);
  RepeatOptions bad;
  bad.warmup_s = -1;
  CHECK_THAT(bad.validate(), Catch::Contains("warm-up"));
}

TEST_CASE("probes: interleaved sampling of no figures returns nothing", "[repeat]") {
  CHECK(repeat_interleaved(RepeatOptions{}, {}).empty());
}

TEST_CASE("probes: the median rule stops on the order-statistic interval of the median, not the mean's", "[repeat]") {
  RepeatOptions o;
  o.min_samples = 9;
  o.target_relative_half_width = 0.1;
  o.statistic = RepeatStatistic::kMedian;
  // Two wild samples widen the mean's interval far beyond 10%; the median's [x(2), x(8)] = [0.98, 1.02]
  // stays within 2%.
  SampleSummary heavy = summarize({1.0, 1.0, 0.98, 1.02, 1.01, 0.99, 1.0, 30.0, 0.2});
  CHECK(precise_enough(heavy, o));
  o.statistic = RepeatStatistic::kMean;
  CHECK_FALSE(precise_enough(heavy, o));
  // Spread middle: x(2)..x(8) = 0.6..1.4 around a median of 1: 40% > 10%.
  o.statistic = RepeatStatistic::kMedian;
  CHECK_FALSE(precise_enough(summarize({0.5, 0.6, 0.8, 0.9, 1.0, 1.1, 1.2, 1.4, 1.5}), o));
}
