// The model error: the spread over calibration configurations of what the mechanisms miss, less the
// noise of the configurations' medians, kept per computer and application (app_jobs.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/model/distribution.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::apps {

ModelErrorSpread model_error_spread(const std::vector<std::vector<double>>& runs_log) {
  ModelErrorSpread out;
  std::vector<double> deviation_of_config, pooled;
  for (const auto& runs : runs_log) {
    if (runs.empty()) continue;
    deviation_of_config.push_back(median(runs));
    if (runs.size() < 2) continue;
    // Deviations from the runs' mean, not their median: one of every three deviations from a median of
    // three is 0, and the medians drawn from them came out several times too narrow.
    double mean = 0;
    for (double x : runs) mean += x / static_cast<double>(runs.size());
    const double scale = std::sqrt(static_cast<double>(runs.size()) / static_cast<double>(runs.size() - 1));
    for (double x : runs) pooled.push_back((x - mean) * scale);
  }
  // Sample variance (n − 1); summarize() would also sort and take a t quantile in every resample.
  const auto variance = [](const std::vector<double>& v) {
    if (v.size() < 2) return 0.0;
    double mean = 0, sum = 0;
    for (double x : v) mean += x / static_cast<double>(v.size());
    for (double x : v) sum += (x - mean) * (x - mean);
    return sum / static_cast<double>(v.size() - 1);
  };
  out.observed_variance = variance(deviation_of_config);
  if (pooled.empty() || !(out.observed_variance > 0)) return out;
  constexpr int kResamples = 400;
  Rng rng(0x6D6F64656C657272ULL);
  double noise = 0;
  std::size_t configs = 0;
  for (const auto& runs : runs_log) {
    if (runs.empty()) continue;
    std::vector<double> medians(kResamples), draw(runs.size());
    for (double& med : medians) {
      for (double& x : draw) x = pooled[rng.index(pooled.size())];
      med = median(draw);
    }
    noise += variance(medians);
    ++configs;
  }
  out.noise_variance = noise / static_cast<double>(configs);
  // The observed variance at its upper 90% bound (configurations resampled): a few configurations leave
  // it uncertain, and a model variance taken at its estimate fell to 0 in a quiet recording, whose
  // held-out intervals then held a third of the runs.
  std::vector<double> variances(kResamples), resample(deviation_of_config.size());
  for (double& v : variances) {
    for (double& x : resample) x = deviation_of_config[rng.index(resample.size())];
    v = variance(resample);
  }
  out.observed_variance_upper = quantile_nearest_rank(variances, 0.9);
  out.shrink =
      std::min(1.0, std::sqrt(std::max(0.0, out.observed_variance_upper - out.noise_variance) / out.observed_variance));
  return out;
}

void record_diagnostics(Profile& profile, const std::vector<CalibrationDiagnostic>& diagnostics) {
  // One deviation per configuration (the median over its repeats), on every computer it ran on, with
  // its application's: what LU's mechanisms miss says nothing of the integration's. Pooled, a VM's
  // integration configuration at ln 0.54 (two of its three runs in the CPU's fast half-second state)
  // widened every LU interval: 88-98% of the held-out runs inside against 70-79% per application.
  std::map<std::tuple<std::string, std::string, std::vector<std::size_t>>, std::vector<double>> by_configuration;
  for (const auto& d : diagnostics) {
    if (d.predicted_s > 0 && d.measured_s > 0)
      by_configuration[{d.app, d.configuration, d.mapping}].push_back(std::log(d.ratio()));
  }
  // (computer, application) -> per configuration its runs
  std::map<std::pair<std::size_t, std::string>, std::vector<std::vector<double>>> runs_of;
  for (const auto& [key, logs] : by_configuration) {
    const auto& mapping = std::get<2>(key);
    for (std::size_t c : std::set<std::size_t>(mapping.begin(), mapping.end()))
      runs_of[{c, std::get<0>(key)}].push_back(logs);
  }
  nlohmann::json spreads = nlohmann::json::object();
  for (auto& c : profile.computers) c.app_models.model_error_log.clear();
  for (const auto& [key, runs] : runs_of) {
    const auto& [c, app] = key;
    const ModelErrorSpread spread = model_error_spread(runs);
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(median(r));
    const double centre = median(v);
    for (double& x : v) x = (x - centre) * spread.shrink;
    std::sort(v.begin(), v.end());
    profile.computers[c].app_models.model_error_log[app] = v;
    spreads[profile.computers[c].name][app] = {{"configurations", runs.size()},
                                               {"observed_sd", std::sqrt(spread.observed_variance)},
                                               {"observed_sd_upper_90", std::sqrt(spread.observed_variance_upper)},
                                               {"noise_sd_of_medians", std::sqrt(spread.noise_variance)},
                                               {"shrink", spread.shrink}};
  }
  profile.diagnostics["calibration_runs"] = to_json(diagnostics);
  profile.diagnostics["model_error"] = spreads;
}

}  // namespace hetperf::apps
