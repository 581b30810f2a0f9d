// Trace events, per-iteration summaries, and trace files read back (validated through JsonNode).
#include "hetperf/model/trace.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf {
namespace {

constexpr int kTraceSchemaVersion = 1;

int bounded_int(const JsonNode& node, std::string_view key, int fallback, int min) {
  return static_cast<int>(node.integer_or(key, fallback, min, INT_MAX));
}

TraceEvent event_from_json(const JsonNode& e, int rank) {
  if (!e.is_object()) e.fail("an event object {\"op\", \"start_s\", \"end_s\", ...}");
  TraceEvent ev;
  ev.rank = rank;
  ev.op = e.string("op");
  if (ev.op.empty()) e.field("op").fail("a non-empty operation name");
  ev.start_s = e.number("start_s");
  ev.end_s = e.number("end_s");
  if (ev.end_s < ev.start_s) e.field("end_s").fail("a time no earlier than start_s (" + csv_number(ev.start_s) + ")");
  ev.iteration = bounded_int(e, "iteration", -1, -1);
  ev.peer = bounded_int(e, "peer", -1, -1);
  ev.tag = bounded_int(e, "tag", 0, 0);  // MPI tags are non-negative
  ev.bytes = static_cast<std::uint64_t>(e.integer_or("bytes", 0, 0, INT64_MAX));
  ev.cpu_s = e.number_or("cpu_s", -1, Range::kNonNegative);
  if (auto dims = e.optional("dims")) {
    const char* expected = "an array [m, n, k] of 3 non-negative integers";
    std::vector<JsonNode> d = dims->items();
    if (d.size() != 3) dims->fail(expected);
    int* out[3] = {&ev.m, &ev.n, &ev.k};
    for (std::size_t i = 0; i < 3; ++i) {
      const nlohmann::json& v = d[i].value();
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > INT_MAX) d[i].fail(expected);
      *out[i] = static_cast<int>(v.get<std::int64_t>());
    }
  }
  return ev;
}

}  // namespace

nlohmann::json to_json(const TraceEvent& e) {
  nlohmann::json j = {{"op", e.op}, {"start_s", e.start_s}, {"end_s", e.end_s}};
  if (e.iteration >= 0) j["iteration"] = e.iteration;
  if (e.peer >= 0) j["peer"] = e.peer, j["tag"] = e.tag;
  if (e.bytes) j["bytes"] = e.bytes;
  if (e.m || e.n || e.k) j["dims"] = {e.m, e.n, e.k};
  if (e.cpu_s >= 0) j["cpu_s"] = e.cpu_s;
  return j;
}

bool is_compute(std::string_view op) {
  // By length first: the simulator asks this of every event it records.
  switch (op.size()) {
    case 4:
      return op == "gemm" || op == "trsm" || op == "pack";
    case 5:
      return op == "getrf" || op == "laswp";
    case 9:
      return op == "integrate";
    default:
      return false;
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

TraceFile trace_from_json(const nlohmann::json& j, const std::string& file) {
  JsonNode root(j, file);
  if (!root.is_object()) root.fail("a JSON object (a hetperf.trace file)");
  root.schema("trace", kTraceSchemaVersion);
  TraceFile t;
  t.file = file;
  t.app = root.string("app");
  if (t.app.empty()) root.field("app").fail("the application's name");
  t.backend = root.choice("backend", {"mpi", "sim"});
  t.config = root.object("config").value();
  // hetperf-integrate traces name their ranks after the instance they come from.
  std::string key = root.has("ranks") || !root.has("instance_0_ranks") ? "ranks" : "instance_0_ranks";
  t.ranks_field = key;
  if (!root.has(key)) {
    throw InputError(file +
                     ": $.ranks: missing required field 'ranks' (expected an array of {\"rank\": R, "
                     "\"events\": [...]}; integrate traces may call it 'instance_0_ranks')");
  }
  std::set<int> seen;
  for (const JsonNode& r : root.array(key, 1)) {
    if (!r.is_object()) r.fail("an object {\"rank\": R, \"events\": [...]}");
    TraceRank rank;
    rank.rank = static_cast<int>(r.integer("rank", 0, INT_MAX));
    if (!seen.insert(rank.rank).second) r.field("rank").fail("a rank not listed before");
    for (const JsonNode& e : r.array("events")) rank.events.push_back(event_from_json(e, rank.rank));
    t.ranks.push_back(std::move(rank));
  }
  return t;
}

TraceFile read_trace(const std::filesystem::path& path) { return trace_from_json(read_json_file(path), path.string()); }

}  // namespace hetperf
