// A trace fit into a profile (trace_fit.hpp apply_trace_fit).
#include <algorithm>
#include <cstdio>

#include "hetperf/calibrate/send_buffer.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::calibrate {
namespace {

// The flush of a synced write: each lone write's time beyond its bytes at the probed write bandwidth
// (none shorter than 0), their median. A journal commit costs the same for a small write as for a
// large one, which the probe's long streaming writes do not see.
void fit_disk_sync(const std::vector<DiskWrite>& writes, Computer& c, std::vector<std::string>& report,
                   std::vector<std::string>& notes) {
  if (writes.empty()) return;
  if (!(c.disk_write_bytes_per_s > 0)) {
    notes.push_back(c.name + ": " + std::to_string(writes.size()) +
                    " traced disk writes, but the disk's write bandwidth was not probed; its flush not fitted");
    return;
  }
  std::vector<double> beyond;
  std::uint64_t smallest = writes.front().bytes, largest = smallest;
  for (const DiskWrite& w : writes) {
    beyond.push_back(std::max(0.0, w.seconds - static_cast<double>(w.bytes) / c.disk_write_bytes_per_s));
    smallest = std::min(smallest, w.bytes), largest = std::max(largest, w.bytes);
  }
  c.disk_sync_latency_s = median(beyond);
  const double p10 = quantile_nearest_rank(beyond, 0.1), p90 = quantile_nearest_rank(beyond, 0.9);
  c.fits["disk_sync_latency_s"] = {
      {"source", "traces"},
      {"writes", writes.size()},
      {"bytes", {smallest, largest}},
      {"median_s", c.disk_sync_latency_s},
      {"p10_s", p10},
      {"p90_s", p90},
      {"model",
       "a write's bytes at disk_write_bytes_per_s through the disk in turn, then this flush, side by side "
       "with other writers' flushes; from the traced writes made while no other rank of the computer wrote"}};
  char line[256];
  std::snprintf(line, sizeof line,
                ": disk flush %.2f ms (median of %zu lone writes of %llu to %llu bytes, 10-90%% %.2f to %.2f ms)",
                1e3 * c.disk_sync_latency_s, writes.size(), static_cast<unsigned long long>(smallest),
                static_cast<unsigned long long>(largest), 1e3 * p10, 1e3 * p90);
  report.push_back(c.name + line);
}

}  // namespace

void apply_trace_fit(Profile& profile, TraceFit& fit) {
  const auto computer = [&](const std::string& name) -> Computer& {
    const auto c = profile.find(name);
    if (!c) {
      throw InputError("--trace: the traces were taken on '" + name + "', which is not a computer of the profile " +
                       "(name it with --trace-computer)");
    }
    return profile.computers[*c];
  };
  for (auto& [name, models] : fit.by_computer) computer(name).app_models = std::move(models);
  for (const auto& [name, writes] : fit.disk_writes) fit_disk_sync(writes, computer(name), fit.report, fit.notes);
  // Large sends across hosts: how much of them the buffers on the way hold when the send returns.
  // Fitted on enough of them, they replace the ping-pong's figure (profile_builder.cpp); too few leave it.
  const std::size_t lines = fit.report.size();
  if (auto b = fit_send_buffer(fit.network_sends, profile.network, fit.report)) {
    profile.network.send_buffer = std::move(*b);
  } else if (profile.network.send_buffer && fit.report.size() > lines) {
    fit.report.back() = "network send buffer: too few sends across hosts in the traces to fit; the ping-pong's " +
                        std::to_string(profile.network.send_buffer->bytes / 1e6) + " MB stays";
  }
}

}  // namespace hetperf::calibrate
