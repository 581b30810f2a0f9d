// Trace events and per-iteration summaries.
#include "hetperf/apps/trace.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace hetperf::apps {

nlohmann::json to_json(const TraceEvent& e) {
  nlohmann::json j = {{"op", e.op}, {"start_s", e.start_s}, {"end_s", e.end_s}};
  if (e.iteration >= 0) j["iteration"] = e.iteration;
  if (e.peer >= 0) j["peer"] = e.peer, j["tag"] = e.tag;
  if (e.bytes) j["bytes"] = e.bytes;
  if (e.m || e.n || e.k) j["dims"] = {e.m, e.n, e.k};
  return j;
}

bool is_compute(std::string_view op) {
  // By length first: the simulator asks this of every event it records.
  switch (op.size()) {
    case 4: return op == "gemm" || op == "trsm";
    case 5: return op == "getrf" || op == "laswp";
    case 9: return op == "integrate";
    default: return false;
  }
}

std::vector<IterationSummary> summarize_iterations(const std::vector<TraceEvent>& events, int ranks) {
  return summarize_iterations(events, [ranks](int) { return ranks; });
}

std::vector<IterationSummary> summarize_iterations(const std::vector<TraceEvent>& events,
                                                   const std::function<int(int iteration)>& ranks) {
  std::map<int, IterationSummary> by_iteration;
  std::map<int, std::set<int>> members;
  for (const TraceEvent& e : events) {
    if (e.iteration < 0) continue;
    auto [it, fresh] = by_iteration.try_emplace(e.iteration);
    IterationSummary& s = it->second;
    if (fresh) {
      s.iteration = e.iteration;
      s.start_s = e.start_s;
      s.end_s = e.end_s;
    }
    s.start_s = std::min(s.start_s, e.start_s);
    s.end_s = std::max(s.end_s, e.end_s);
    if (is_compute(e.op)) s.compute_s += e.end_s - e.start_s;
    members[e.iteration].insert(e.rank);
  }
  std::vector<IterationSummary> out;
  for (auto& [k, s] : by_iteration) {
    // Every rank still in the computation takes part, busy or idle; ranks is the count given.
    s.ranks = std::max<int>(ranks(k), static_cast<int>(members[k].size()));
    out.push_back(s);
  }
  return out;
}

}  // namespace hetperf::apps
