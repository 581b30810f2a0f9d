// The workload distributions the simulator samples (model/distribution.hpp): sample means against
// the analytic means, from the simulator's seeded stream.
#include <catch2/catch.hpp>

#include <cmath>

#include "hetperf/model/distribution.hpp"
#include "hetperf/model/json_node.hpp"

using namespace hetperf;
using nlohmann::json;

namespace {

Distribution parse(const json& j) { return distribution_from_json(JsonNode(j, "d.json"), Range::kAny); }

double sample_mean(const Distribution& d, int n, std::uint64_t seed = 2024) {
  Rng rng(seed);
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += d.sample(rng);
  return sum / n;
}

}  // namespace

TEST_CASE("simulator: every distribution's sample mean matches its analytic mean") {
  struct Case {
    json spec;
    double mean;
  };
  std::vector<Case> cases = {
      {5.0, 5.0},
      {{{"distribution", "constant"}, {"value", 3}}, 3.0},
      {{{"distribution", "uniform"}, {"min", 2}, {"max", 6}}, 4.0},
      {{{"distribution", "exponential"}, {"mean", 1.5}}, 1.5},
      {{{"distribution", "hyperexponential"}, {"weights", {0.9, 0.1}}, {"means", {1, 10}}}, 1.9},
      {{{"distribution", "weibull"}, {"shape", 2}, {"scale", 3}}, 3 * std::tgamma(1.5)},
      {{{"distribution", "normal"}, {"mean", 10}, {"stddev", 2}}, 10.0},
      {{{"distribution", "lognormal"}, {"mu", 0.5}, {"sigma", 0.4}}, std::exp(0.5 + 0.08)},
      {{{"distribution", "empirical"}, {"samples", {1, 2, 3, 10}}}, 4.0},
  };
  for (const auto& c : cases) {
    INFO(c.spec.dump());
    Distribution d = parse(c.spec);
    CHECK(d.mean() == Approx(c.mean).epsilon(1e-12));
    CHECK(sample_mean(d, 200000) == Approx(c.mean).epsilon(0.01));
  }
}

TEST_CASE("simulator: sampling is repeatable for a seed and differs between seeds") {
  Distribution d = parse({{"distribution", "exponential"}, {"mean", 1}});
  CHECK(sample_mean(d, 1000, 5) == sample_mean(d, 1000, 5));
  CHECK(sample_mean(d, 1000, 5) != sample_mean(d, 1000, 6));
}

TEST_CASE("simulator: uniform and empirical samples stay within their support") {
  Rng rng(3);
  Distribution u = parse({{"distribution", "uniform"}, {"min", 2}, {"max", 6}});
  Distribution e = parse({{"distribution", "empirical"}, {"samples", {1, 2, 3}}});
  for (int k = 0; k < 10000; ++k) {
    double x = u.sample(rng), y = e.sample(rng);
    REQUIRE(x >= 2);
    REQUIRE(x < 6);
    REQUIRE((y == 1 || y == 2 || y == 3));
  }
}
