// The order of a validation's real runs (see run_order.hpp).
#include "hetperf/validate/run_order.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "hetperf/model/distribution.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::validate {
using namespace apps;

namespace {

// Fisher-Yates with hetperf's own generator: the same order on every platform.
void shuffle(std::vector<std::size_t>& order, Rng& rng) {
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.index(i)]);
}

}  // namespace

std::vector<std::size_t> run_order(std::size_t configurations, int repeats, std::uint64_t seed) {
  return run_order(std::vector<int>(configurations, repeats), seed);
}

std::vector<std::size_t> run_order(const std::vector<int>& repeats, std::uint64_t seed) {
  std::vector<std::size_t> order;
  const int most = repeats.empty() ? 0 : *std::max_element(repeats.begin(), repeats.end());
  for (int k = 0; k < most; ++k) {
    for (std::size_t c = 0; c < repeats.size(); ++c) {
      if (k < repeats[c]) order.push_back(c);
    }
  }
  Rng rng(seed);
  shuffle(order, rng);
  return order;
}

std::vector<std::size_t> imprecise_medians(const std::vector<ValidationRun>& runs, double precision) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& x = runs[i].measured_samples_s;
    if (x.size() < 3) {
      out.push_back(i);
      continue;
    }
    const double m = median(x);
    const auto [lo, hi] = median_ci95(x);
    if (!(m > 0) || std::max(m - lo, hi - m) > precision * m) out.push_back(i);
  }
  return out;
}

std::vector<std::size_t> affordable(const std::vector<std::size_t>& wide, const std::vector<double>& seconds_per_run,
                                    double budget_s) {
  std::vector<std::size_t> cheapest = wide;
  std::stable_sort(cheapest.begin(), cheapest.end(), [&](std::size_t a, std::size_t b) {
    return seconds_per_run.at(a) < seconds_per_run.at(b) || (seconds_per_run.at(a) == seconds_per_run.at(b) && a < b);
  });
  std::vector<bool> taken(seconds_per_run.size(), false);
  double spent = 0;
  for (std::size_t k : cheapest) {
    if (!(spent + seconds_per_run[k] <= budget_s)) break;
    spent += seconds_per_run[k];
    taken[k] = true;
  }
  std::vector<std::size_t> out;
  for (std::size_t k : wide) {
    if (taken[k]) out.push_back(k);
  }
  return out;
}

std::vector<std::size_t> further_round(const std::vector<std::string>& validated_apps,
                                       const std::vector<std::size_t>& wide,
                                       const std::vector<std::string>& calibration_apps, int repeat,
                                       int calibration_repeat, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::size_t> order = wide;
  std::map<std::string, std::size_t> further;  // app -> its validated runs in this round
  for (std::size_t i : wide) ++further[validated_apps.at(i)];
  for (const auto& [app, k] : further) {
    std::vector<std::size_t> pool;
    for (std::size_t c = 0; c < calibration_apps.size(); ++c) {
      if (calibration_apps[c] == app) pool.push_back(c);
    }
    const auto validated = std::count(validated_apps.begin(), validated_apps.end(), app);
    if (pool.empty() || calibration_repeat <= 0 || repeat <= 0) continue;
    const double expected = static_cast<double>(k) * calibration_repeat * static_cast<double>(pool.size()) /
                            (static_cast<double>(validated) * repeat);
    std::size_t n = static_cast<std::size_t>(std::floor(expected));
    if (rng.uniform01() < expected - std::floor(expected)) ++n;
    n = std::min(n, pool.size());
    for (std::size_t i = 0; i < n; ++i) {
      std::swap(pool[i], pool[i + rng.index(pool.size() - i)]);
      order.push_back(validated_apps.size() + pool[i]);
    }
  }
  shuffle(order, rng);
  return order;
}

}  // namespace hetperf::validate
