// Building the processor groups of a batch cluster.
#include "hetperf/simulator/batch/cluster.hpp"

#include <algorithm>

#include "hetperf/model/error.hpp"

namespace hetperf::sim::batch {

std::int64_t Cluster::total() const {
  std::int64_t n = 0;
  for (const auto& g : groups) n += g.processors;
  return n;
}

Cluster Cluster::homogeneous(std::int64_t processors) {
  if (processors < 1) throw InputError("the cluster needs at least 1 processor, got " + std::to_string(processors));
  Cluster c;
  c.groups.push_back({"unit", 1.0, processors});
  return c;
}

Cluster Cluster::from_profile(const Profile& profile) {
  Cluster c;
  double fastest = 0;
  for (const auto& comp : profile.computers) fastest = std::max(fastest, comp.mips);
  if (profile.computers.empty() || fastest <= 0)
    throw InputError("the platform profile has no computer with a positive mips");
  for (const auto& comp : profile.computers) {
    if (comp.cores < 1 || comp.mips <= 0) continue;
    c.groups.push_back({comp.name, comp.mips / fastest, comp.cores});
  }
  // Fastest first; equal speeds keep the profile's order, so allocation is deterministic.
  std::stable_sort(c.groups.begin(), c.groups.end(),
                   [](const SpeedGroup& a, const SpeedGroup& b) { return a.speed > b.speed; });
  c.latency_s = profile.network.latency_s;
  c.bandwidth_bytes_per_s = profile.network.bandwidth_bytes_per_s;
  // A redistribution model fitted to measured resizes prices them better than the ping-pong line.
  if (const auto& r = profile.network.redistribution) {
    c.latency_s = r->latency_s;
    c.bandwidth_bytes_per_s = r->bandwidth_bytes_per_s;
  }
  return c;
}

}  // namespace hetperf::sim::batch
