// What a validation's runs say of its predictions (see statistics.hpp).
#include "hetperf/validate/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "hetperf/model/distribution.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::validate {
using namespace apps;

std::map<std::string, Statistics> axis_statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed) {
  std::map<std::string, std::vector<ValidationRun>> by_axis;
  for (const auto& r : runs) {
    if (r.axes.empty()) by_axis["calibrated regime"].push_back(r);
    for (const auto& a : r.axes) by_axis[a].push_back(r);
  }
  std::map<std::string, Statistics> out;
  for (const auto& [a, list] : by_axis) out[a] = statistics(list, seed);
  return out;
}

Statistics statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed, int resamples) {
  Statistics s;
  std::vector<double> errors, widths, noise;
  std::size_t inside = 0;
  for (const auto& r : runs) {
    if (r.measured_samples_s.empty() || !(r.measured_s > 0)) continue;
    ++s.configurations;
    errors.push_back(r.error());
    if (r.predicted_s > 0) widths.push_back((r.predicted_p90_s - r.predicted_p10_s) / r.predicted_s);
    std::vector<double> deviation;
    for (double x : r.measured_samples_s) {
      ++s.runs;
      inside += x >= r.predicted_p10_s && x <= r.predicted_p90_s;
      deviation.push_back(std::fabs(x - r.measured_s) / r.measured_s);
    }
    noise.push_back(median(deviation));
  }
  if (errors.empty()) return s;
  s.bias = median(errors);
  const auto n = static_cast<double>(errors.size());
  s.within_5 =
      static_cast<double>(std::count_if(errors.begin(), errors.end(), [](double e) { return std::fabs(e) <= 0.05; })) /
      n;
  s.within_10 =
      static_cast<double>(std::count_if(errors.begin(), errors.end(), [](double e) { return std::fabs(e) <= 0.10; })) /
      n;
  s.coverage = static_cast<double>(inside) / static_cast<double>(s.runs);
  s.median_width = median(widths);
  s.noise_floor = median(noise);
  // Bootstrap of the median signed error: configurations resampled with replacement.
  Rng rng(seed);
  std::vector<double> medians, resample(errors.size());
  for (int b = 0; b < resamples; ++b) {
    for (double& e : resample) e = errors[rng.index(errors.size())];
    medians.push_back(median(resample));
  }
  s.bias_low = quantile_nearest_rank(medians, 0.025);
  s.bias_high = quantile_nearest_rank(medians, 0.975);
  return s;
}

nlohmann::json to_json(const Statistics& s) {
  return {{"configurations", s.configurations},
          {"runs", s.runs},
          {"bias", s.bias},
          {"bias_ci95", {s.bias_low, s.bias_high}},
          {"within_5_percent", s.within_5},
          {"within_10_percent", s.within_10},
          {"coverage_80", s.coverage},
          {"median_interval_width", s.median_width},
          {"noise_floor", s.noise_floor}};
}

Accuracy accuracy(const std::vector<ValidationRun>& runs) {
  Accuracy a;
  a.runs = runs.size();
  if (runs.empty()) return a;
  std::size_t in5 = 0, in10 = 0;
  double sum = 0;
  for (const auto& r : runs) {
    double e = std::fabs(r.error());
    in5 += e <= 0.05;
    in10 += e <= 0.10;
    sum += e;
    if (e >= a.max_abs_error) a.max_abs_error = e, a.worst_run = r.id;
  }
  a.within_5 = static_cast<double>(in5) / runs.size();
  a.within_10 = static_cast<double>(in10) / runs.size();
  a.mean_abs_error = sum / runs.size();
  std::vector<double> spreads;
  for (const auto& r : runs) spreads.push_back(r.spread());
  std::sort(spreads.begin(), spreads.end());
  const std::size_t n = spreads.size();
  a.median_spread = median(spreads);
  a.spread_over_10 =
      static_cast<double>(std::count_if(spreads.begin(), spreads.end(), [](double s) { return s > 0.10; })) / n;
  return a;
}

}  // namespace hetperf::validate
