// A trace fit into a profile (trace_fit.hpp apply_trace_fit).
#include "hetperf/calibrate/send_buffer.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/error.hpp"

namespace hetperf::calibrate {

void apply_trace_fit(Profile& profile, TraceFit& fit) {
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
}

}  // namespace hetperf::calibrate
