// A trace fit into a profile (trace_fit.hpp apply_trace_fit).
#include "app_jobs.hpp"
#include "hetperf/calibrate/send_buffer.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/error.hpp"

namespace hetperf::calibrate {

void apply_trace_fit(Profile& profile, TraceFit& fit, const std::vector<std::filesystem::path>& traces,
                     const TraceFitOptions& options) {
  for (auto& [name, models] : fit.by_computer) {
    const auto c = profile.find(name);
    if (!c) {
      throw InputError("--trace: the traces were taken on '" + name + "', which is not a computer of the profile " +
                       "(name it with --trace-computer)");
    }
    profile.computers[*c].app_models = std::move(models);
  }
  // Large sends across hosts: how much of them the buffers on the way hold when the send returns.
  if (auto b = fit_send_buffer(fit.network_sends, profile.network, fit.report)) profile.network.send_buffer = std::move(*b);
  for (const auto& [name, files] : fit.traces_of) {
    const auto c = profile.find(name);
    if (c && !profile.computers[*c].app_models.empty()) {
      profile.computers[*c].app_models.run_scales = apps::run_scales(profile, *c, files);
    }
  }
  if (options.computer.empty()) profile.placements = apps::placement_runs(profile, traces);
}

}  // namespace hetperf::calibrate
