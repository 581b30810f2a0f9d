// Distributions and their seeded sampling (inverse transform where a closed form exists).
#include "hetperf/model/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::size_t Rng::index(std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(uniform01() * static_cast<double>(n)));
}

double Rng::open01() {
  double u;
  do u = uniform01();
  while (u == 0.0);
  return u;
}

double Rng::normal() { return std::sqrt(-2 * std::log(open01())) * std::cos(2 * std::numbers::pi * uniform01()); }

double Distribution::sample(Rng& rng) const {
  switch (kind) {
    case Kind::kConstant:
      return a;
    case Kind::kUniform:
      return a + (b - a) * rng.uniform01();
    case Kind::kExponential:
      return -a * std::log(rng.open01());
    case Kind::kHyperexponential: {
      double u = rng.uniform01(), acc = 0;
      std::size_t phase = weights.size() - 1;
      for (std::size_t i = 0; i < weights.size(); ++i) {
        acc += weights[i];
        if (u < acc) {
          phase = i;
          break;
        }
      }
      return -values[phase] * std::log(rng.open01());
    }
    case Kind::kWeibull:
      return b * std::pow(-std::log(rng.open01()), 1 / a);
    case Kind::kNormal:
      return a + b * rng.normal();
    case Kind::kLognormal:
      return std::exp(a + b * rng.normal());
    case Kind::kEmpirical:
      return values[rng.index(values.size())];
  }
  return a;
}

double Distribution::mean() const {
  switch (kind) {
    case Kind::kConstant:
      return a;
    case Kind::kUniform:
      return (a + b) / 2;
    case Kind::kExponential:
      return a;
    case Kind::kHyperexponential:
      return std::inner_product(weights.begin(), weights.end(), values.begin(), 0.0);
    case Kind::kWeibull:
      return b * std::tgamma(1 + 1 / a);
    case Kind::kNormal:
      return a;
    case Kind::kLognormal:
      return std::exp(a + b * b / 2);
    case Kind::kEmpirical:
      return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  }
  return a;
}

Distribution distribution_from_json(const JsonNode& node, Range range) {
  if (node.value().is_number()) return Distribution::constant(node.as_number(range));
  if (!node.is_object()) node.fail("a number or a distribution object {\"distribution\": ...}");
  using K = Distribution::Kind;
  Distribution d;
  std::string kind = node.choice("distribution", {"constant", "uniform", "exponential", "hyperexponential", "weibull",
                                                  "normal", "lognormal", "empirical"});
  // Distributions whose support is the whole real line are only allowed for unbounded quantities.
  bool non_negative = range != Range::kAny;
  if (kind == "constant") {
    node.known_fields({"distribution", "value"});
    d = Distribution::constant(node.number("value", range));
  } else if (kind == "uniform") {
    node.known_fields({"distribution", "min", "max"});
    d = {K::kUniform, node.number("min", range), node.number("max", range), {}, {}};
    if (d.b < d.a) node.field("max").fail("max >= min");
  } else if (kind == "exponential") {
    node.known_fields({"distribution", "mean"});
    d = {K::kExponential, node.number("mean", Range::kPositive), 0, {}, {}};
  } else if (kind == "hyperexponential") {
    node.known_fields({"distribution", "weights", "means"});
    d.kind = K::kHyperexponential;
    for (const JsonNode& w : node.array("weights", 1)) d.weights.push_back(w.as_number(Range::kFraction));
    for (const JsonNode& m : node.array("means", 1)) d.values.push_back(m.as_number(Range::kPositive));
    if (d.weights.size() != d.values.size()) node.field("means").fail("as many means as weights");
    double sum = std::accumulate(d.weights.begin(), d.weights.end(), 0.0);
    if (std::fabs(sum - 1) > 1e-9) node.field("weights").fail("weights that sum to 1");
  } else if (kind == "weibull") {
    node.known_fields({"distribution", "shape", "scale"});
    d = {K::kWeibull, node.number("shape", Range::kPositive), node.number("scale", Range::kPositive), {}, {}};
  } else if (kind == "normal") {
    node.known_fields({"distribution", "mean", "stddev"});
    if (non_negative)
      node.field("distribution")
          .fail("a distribution with non-negative support (normal can be negative; use lognormal or weibull)");
    d = {K::kNormal, node.number("mean"), node.number("stddev", Range::kNonNegative), {}, {}};
  } else if (kind == "lognormal") {
    node.known_fields({"distribution", "mu", "sigma"});
    d = {K::kLognormal, node.number("mu"), node.number("sigma", Range::kNonNegative), {}, {}};
  } else {  // empirical
    node.known_fields({"distribution", "samples"});
    d.kind = K::kEmpirical;
    for (const JsonNode& v : node.array("samples", 1)) d.values.push_back(v.as_number(range));
  }
  // Parameters a double holds can still describe draws it cannot (a Weibull shape of 1e-300, a
  // lognormal mu of 1000): their mean says so.
  if (!std::isfinite(d.mean())) {
    node.fail("a distribution whose mean is a finite number (these parameters give " + csv_number(d.mean()) + ")");
  }
  return d;
}

nlohmann::json to_json(const Distribution& d) {
  using K = Distribution::Kind;
  switch (d.kind) {
    case K::kConstant:
      return d.a;
    case K::kUniform:
      return {{"distribution", "uniform"}, {"min", d.a}, {"max", d.b}};
    case K::kExponential:
      return {{"distribution", "exponential"}, {"mean", d.a}};
    case K::kHyperexponential:
      return {{"distribution", "hyperexponential"}, {"weights", d.weights}, {"means", d.values}};
    case K::kWeibull:
      return {{"distribution", "weibull"}, {"shape", d.a}, {"scale", d.b}};
    case K::kNormal:
      return {{"distribution", "normal"}, {"mean", d.a}, {"stddev", d.b}};
    case K::kLognormal:
      return {{"distribution", "lognormal"}, {"mu", d.a}, {"sigma", d.b}};
    case K::kEmpirical:
      return {{"distribution", "empirical"}, {"samples", d.values}};
  }
  return d.a;
}

}  // namespace hetperf
