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
