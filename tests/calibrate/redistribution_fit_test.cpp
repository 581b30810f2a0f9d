// Tests of calibrate/src/redistribution_fit.cpp: t = l + s/b with s = bytes / min(p, q).
#include <catch2/catch.hpp>

#include "hetperf/calibrate/redistribution_fit.hpp"
#include "hetperf/model/error.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

TEST_CASE("calibrate: the redistribution fit recovers the ReSHAPE paper's Figure 3a line from its own model") {
  // Expansions of LU 12000 (1.152e9 bytes) as Figure 3a lists them, timed by l = 4.78 s, b = 79.2 MB/s:
  // s = data (1 - p/q) moved, over the p kept ranks.
  const double data = 12000.0 * 12000 * 8, l = 4.78, b = 79.2e6;
  std::vector<RedistributionSample> samples;
  for (auto [p, q] : {std::pair{2, 4}, {4, 6}, {6, 9}, {9, 12}, {12, 16}}) {
    double moved = data * (1 - static_cast<double>(p) / q);
    samples.push_back({moved, p, q, l + moved / p / b, "fig3a"});
  }
  RedistributionFitSummary s = fit_redistribution(samples, "fig3a");
  CHECK(s.latency_s == Approx(l).epsilon(1e-9));
  CHECK(s.bandwidth_bytes_per_s == Approx(b).epsilon(1e-9));
  CHECK(s.fit.r2 == Approx(1.0));
  CHECK(s.fit.points == 5);
  // A shrink prices like the expansion of the same sets: min(p, q) ranks keep their data.
  samples[0] = {data * 0.5, 4, 2, l + data * 0.5 / 2 / b, "shrink"};
  CHECK(fit_redistribution(samples, "fig3a").latency_s == Approx(l).epsilon(1e-9));
}

TEST_CASE("calibrate: repeats of one resize enter the redistribution fit as their median") {
  // Three resizes on the line l = 0.01 s, b = 1e8 B/s; the second measured three times, one run slow.
  std::vector<RedistributionSample> samples = {{1e6, 1, 2, 0.02, "a"},
                                               {4e6, 1, 2, 0.05, "b1"},
                                               {4e6, 1, 2, 0.5, "b2"},
                                               {4e6, 1, 2, 0.05, "b3"},
                                               {8e6, 1, 2, 0.09, "c"}};
  RedistributionFitSummary s = fit_redistribution(samples, "t");
  CHECK(s.fit.points == 3);
  CHECK(s.latency_s == Approx(0.01).epsilon(1e-9));
  CHECK(s.bandwidth_bytes_per_s == Approx(1e8).epsilon(1e-9));
}

TEST_CASE("calibrate: a negative start-up time is refitted as a line through the origin") {
  std::vector<RedistributionSample> samples = {
      {1e6, 2, 4, 0.004, "a"}, {2e6, 2, 4, 0.0105, "b"}, {4e6, 2, 4, 0.0215, "c"}};
  RedistributionFitSummary s = fit_redistribution(samples, "t");
  CHECK(s.latency_s == 0);
  CHECK(s.fit.parameters.size() == 1);
  CHECK(s.bandwidth_bytes_per_s > 0);
}

TEST_CASE("calibrate: unusable redistribution samples are input errors naming the sample") {
  std::vector<RedistributionSample> ok = {{1e6, 2, 4, 0.01, "a"}, {2e6, 2, 4, 0.02, "b"}, {4e6, 2, 4, 0.04, "c"}};
  auto error = [](std::vector<RedistributionSample> s) {
    try {
      fit_redistribution(s, "runs");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto bad = ok;
  bad[1].to_ranks = 2;
  CHECK(error(bad) == "b: expected two different rank counts >= 1, got 2 -> 2");
  bad = ok;
  bad[2].time_s = 0;
  CHECK(error(bad).rfind("c: expected a positive time", 0) == 0);
  CHECK(error({ok[0], ok[1]}) ==
        "runs: expected at least 3 different measured redistributions (bytes or ranks), got 2");
  CHECK(error({ok[0], ok[1], ok[1]}) ==
        "runs: expected at least 3 different measured redistributions (bytes or ranks), got 2");
  auto same_size = ok;
  same_size[1].from_ranks = 1, same_size[1].to_ranks = 2, same_size[1].bytes = 5e5;  // s = 5e5 / 1 = 1e6 / 2
  same_size[2] = {1e6, 4, 2, 0.01, "c"};                                             // s = 1e6 / 2 again
  CHECK(error(same_size).rfind("runs: expected redistributions of at least two sizes", 0) == 0);
  bad = ok;
  bad[2].time_s = 0.001;
  bad[0].time_s = 0.05;
  CHECK(error(bad).find("does not grow with the bytes moved") != std::string::npos);
}
