// The LU's redistributions at its resize points, read back from a trace (lu.hpp): what hetperf-lu
// reports as measured and the simulated back-end as predicted, computed the same way from both.
#include <algorithm>
#include <map>
#include <set>

#include "hetperf/apps/lu.hpp"

namespace hetperf::apps {

std::vector<LuRedistribution> lu_redistributions(const std::vector<TraceEvent>& events, const LuConfig& config,
                                                 int ranks) {
  struct Acc {
    LuRedistribution r;
    std::map<int, double> first_start;  // rank -> start of its first hand-off
    std::set<int> ranks;
  };
  std::map<int, Acc> by_iteration;
  for (const TraceEvent& e : events) {
    if (e.tag != kLuHandOffTag || e.peer < 0 || e.iteration < 0) continue;
    Acc& a = by_iteration[e.iteration];
    a.r.after_iteration = e.iteration;
    auto [it, fresh] = a.first_start.try_emplace(e.rank, e.start_s);
    if (!fresh) it->second = std::min(it->second, e.start_s);
    a.r.end_s = std::max(a.r.end_s, e.end_s);
    if (e.op == "send") a.r.bytes += e.bytes;
    a.ranks.insert(e.rank);
  }
  std::vector<LuRedistribution> out;
  for (auto& [k, a] : by_iteration) {
    a.r.start_s = a.first_start.begin()->second;
    for (const auto& [rank, start] : a.first_start) a.r.start_s = std::max(a.r.start_s, start);
    a.r.ranks = static_cast<int>(a.ranks.size());
    a.r.from_ranks = lu_ranks_in_iteration(config, ranks, k);
    a.r.to_ranks = lu_ranks_in_iteration(config, ranks, k + 1);
    out.push_back(a.r);
  }
  return out;
}

nlohmann::json redistributions_json(const std::vector<LuRedistribution>& rs, double origin) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rs) {
    out.push_back({{"after_iteration", r.after_iteration},
                   {"from_ranks", r.from_ranks},
                   {"to_ranks", r.to_ranks},
                   {"start_s", r.start_s - origin},
                   {"end_s", r.end_s - origin},
                   {"time_s", r.time_s()},
                   {"bytes", r.bytes},
                   {"ranks", r.ranks}});
  }
  return out;
}

}  // namespace hetperf::apps
