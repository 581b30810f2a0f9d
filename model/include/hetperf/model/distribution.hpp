// Probability distributions for workload quantities (UniMPP paper: pdf dm, pdf dr, pdf dw, pdf net and
// the process generator's inter-arrival times), with a seeded generator of our own so that the same
// workload and seed give the same samples on every platform (std::*_distribution does not promise that).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

class JsonNode;

// xoshiro256** seeded through splitmix64: fast, well tested, and fully specified.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform01();                // in [0, 1), 53 random bits
  std::size_t index(std::size_t n);  // in [0, n), n > 0, each equally likely (from one uniform01)
  double open01();                   // in (0, 1)
  double normal();                   // standard normal (Box-Muller, one value per call)

 private:
  std::uint64_t s_[4];
};

struct Distribution {
  enum class Kind { kConstant, kUniform, kExponential, kHyperexponential, kWeibull, kNormal, kLognormal, kEmpirical };
  Kind kind = Kind::kConstant;
  // Parameters by kind:
  //   constant: a = value            uniform: a = min, b = max        exponential: a = mean
  //   weibull: a = shape k, b = scale λ    normal: a = mean, b = stddev    lognormal: a = μ, b = σ (of ln x)
  //   hyperexponential: weights (sum 1) and means of the phases          empirical: values (drawn uniformly)
  double a = 0, b = 0;
  std::vector<double> weights, values;

  static Distribution constant(double v) { return Distribution{Kind::kConstant, v, 0, {}, {}}; }
  double sample(Rng& rng) const;
  double mean() const;
  bool is_constant() const { return kind == Kind::kConstant; }
};

// A quantity is a plain number (a constant) or {"distribution": "<kind>", ...parameters}; see docs/formats.md.
// `range` bounds constants and the support of distributions (e.g. sizes must be non-negative).
enum class Range;
Distribution distribution_from_json(const JsonNode& node, Range range);
nlohmann::json to_json(const Distribution& d);

}  // namespace hetperf
