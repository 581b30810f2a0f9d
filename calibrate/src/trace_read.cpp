// The calibration traces read into each computer's calls, messages and runs alone (trace_data.hpp).
#include "trace_data.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf::calibrate::detail {
namespace {

OperationCall operation_call(const hetperf::TraceEvent& e) {
  OperationCall c{e.op, static_cast<double>(e.m), static_cast<double>(e.n), static_cast<double>(e.k), 0};
  if (e.op == "integrate") c.steps = static_cast<double>(e.m), c.m = 0;  // the runtime records steps as m
  return c;
}

// The trace's messages, each send (or isend) matched with its receive in order per (source,
// destination, tag), as MPI matches them. Of an application with iterations (LU), only those received
// inside them: the prediction times the iterations, and the messages around them are of another
// regime. The gather after LU's factorisation moves every block from or into a buffer MPI has not used
// before, at 0.4-0.55 GB/s on this project's VM against 3-4 GB/s for the panels, and set the line's
// slope alone (2 ranks of basic LU at n = 3072 were predicted 10-19% long by it).
std::vector<Message> matched_messages(const hetperf::TraceFile& trace, std::size_t run) {
  std::map<std::tuple<int, int, int>, std::vector<const hetperf::TraceEvent*>> sends, receives;
  bool iterations = false;
  for (const auto& rank : trace.ranks) {
    for (const auto& e : rank.events) {
      if (e.op == "send" || e.op == "isend") sends[{rank.rank, e.peer, e.tag}].push_back(&e);
      if (e.op == "recv") receives[{e.peer, rank.rank, e.tag}].push_back(&e);
      iterations = iterations || e.iteration >= 0;
    }
  }
  std::vector<Message> out;
  for (const auto& [key, list] : sends) {
    auto r = receives.find(key);
    if (r == receives.end()) continue;
    for (std::size_t i = 0; i < std::min(list.size(), r->second.size()); ++i) {
      const hetperf::TraceEvent& send = *list[i];
      const hetperf::TraceEvent& recv = *r->second[i];
      if (iterations && recv.iteration < 0) continue;
      out.push_back({send.bytes, std::max(0.0, recv.end_s - std::max(send.start_s, recv.start_s)), run,
                     std::get<0>(key), std::get<1>(key)});
    }
  }
  return out;
}

// Ranks of one computer computing at each call's midpoint: for the calls of `intervals` (every
// compute call of the computer's ranks in one run, as (start, end)), the number of intervals that hold
// the midpoint, its own included.
std::vector<int> concurrency_at_midpoints(const std::vector<std::pair<double, double>>& intervals) {
  std::vector<double> starts, ends;
  for (const auto& [a, b] : intervals) starts.push_back(a), ends.push_back(b);
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::vector<int> out;
  for (const auto& [a, b] : intervals) {
    const double mid = 0.5 * (a + b);
    const auto started = std::upper_bound(starts.begin(), starts.end(), mid) - starts.begin();
    const auto ended = std::lower_bound(ends.begin(), ends.end(), mid) - ends.begin();
    out.push_back(std::max(1, static_cast<int>(started - ended)));
  }
  return out;
}

// The facts of one trace file the fit needs.
struct RunFacts {
  std::vector<std::string> rank_host;  // per rank
  std::map<std::string, int> on_host, cores_of;
  bool across = false;
  bool host_clock = false;  // ranks of one host share its clock origin
};

RunFacts run_facts(const JsonNode& run, const TraceFitOptions& o, TraceFit& out, const std::string& file) {
  RunFacts f;
  const std::string host = run.string("host");
  const int ranks = static_cast<int>(run.integer("ranks", 1, 1 << 20));
  const int cores = static_cast<int>(run.integer("cores", 1, 1 << 20));
  // Every rank's host, when the trace records them (a run across hosts): each rank's calls go to
  // the computer it ran on. Older traces: all on `host`.
  f.rank_host.assign(static_cast<std::size_t>(ranks), host);
  if (const auto listed = run.optional("rank_hosts")) {
    const std::vector<JsonNode> names = listed->items();
    if (names.size() != f.rank_host.size()) {
      run.field("rank_hosts")
          .fail("one host per rank (" + std::to_string(ranks) + "), got " + std::to_string(names.size()));
    }
    for (std::size_t r = 0; r < names.size(); ++r) f.rank_host[r] = names[r].as_string();
  }
  f.across = std::set<std::string>(f.rank_host.begin(), f.rank_host.end()).size() > 1;
  if (f.across && !o.computer.empty()) {
    out.notes.push_back(file + ": ranks on several hosts: each rank's calls fitted under its own host, not under " +
                        o.computer);
  }
  const auto origin = run.optional("clock_origin");
  f.host_clock = !f.across || (origin && origin->as_string() == "host");
  const auto host_cores = run.optional("host_cores");
  for (auto& h : f.rank_host) {
    const int c = host_cores ? static_cast<int>(host_cores->integer(h, 1, 1 << 20)) : cores;
    if (!o.computer.empty() && !f.across) h = o.computer;  // every trace under the named computer
    ++f.on_host[h];
    f.cores_of[h] = c;
  }
  return f;
}

// The problem size of a trace's run: LU's n, integration's steps; 0 when not recorded.
std::pair<std::string, double> run_size(const JsonNode& root, const hetperf::TraceFile& trace) {
  const auto config = root.optional("config");
  if (!config) return {trace.app, 0};
  if (trace.app == "lu") return {"lu", config->number_or("n", 0, Range::kNonNegative)};
  return {trace.app, config->number_or("steps", 0, Range::kNonNegative)};
}

// Adds `value` to a sorted list of distinct values.
template <class T>
void insert_sorted(std::vector<T>& list, const T& value) {
  const auto at = std::lower_bound(list.begin(), list.end(), value);
  if (at == list.end() || *at != value) list.insert(at, value);
}

// What the run adds to the calibrated range of each of its computers.
void extend_range(TraceFit& out, const RunFacts& facts, const JsonNode& root, const hetperf::TraceFile& trace) {
  const auto [app, size] = run_size(root, trace);
  const auto config = root.optional("config");
  const std::string variant = trace.app == "lu" && config ? config->string_or("variant", "basic") : "";
  for (const auto& [h, n] : facts.on_host) {
    CalibratedRange& range = out.by_computer[h].calibrated;
    insert_sorted(range.ranks, n);
    if (size > 0) {
      auto [it, fresh] = range.sizes.try_emplace(app, size, size);
      it->second = {std::min(it->second.first, size), std::max(it->second.second, size)};
    }
    if (!variant.empty()) insert_sorted(range.variants, variant);
    for (const auto& [other, k] : facts.on_host) {
      if (other != h) insert_sorted(range.with, other);
    }
  }
}

// The trace's large blocking sends to another host (for the network's send buffer), each marked when
// it followed another send; a message's peer outside the ranks is an error naming its event.
void network_sends(const JsonNode& root, const RunFacts& facts, std::size_t i, const hetperf::TraceRank& rank,
                   const TraceFitOptions& o, TraceFit& out) {
  const int ranks = static_cast<int>(facts.rank_host.size());
  const std::string& h = facts.rank_host[static_cast<std::size_t>(rank.rank)];
  for (std::size_t k = 0; k < rank.events.size(); ++k) {
    const auto& e = rank.events[k];
    if ((e.op == "send" || e.op == "isend" || e.op == "recv") && (e.peer < 0 || e.peer >= ranks)) {
      root.array("ranks")[i].array("events")[k].field("peer").fail("a rank 0 to " + std::to_string(ranks - 1) +
                                                                   " (the other end of the " + e.op + ")");
    }
    if (e.op != "send" || e.bytes <= o.eager_limit_bytes || facts.rank_host[static_cast<std::size_t>(e.peer)] == h)
      continue;
    const bool after_send = k > 0 && (rank.events[k - 1].op == "send" || rank.events[k - 1].op == "isend");
    out.network_sends.push_back({e.bytes, std::max(0.0, e.end_s - e.start_s), after_send, root.file()});
  }
}

// Disk writes alone on their computer (ranks of a host share its clock): a write beside another
// waited for it in the disk's queue.
void alone_disk_writes(const std::string& h, std::vector<std::tuple<double, double, std::uint64_t>>& w, bool host_clock,
                       const std::string& file, TraceFit& out) {
  if (!host_clock && w.size() > 1) return;  // clocks of their own: which overlapped is unknown
  std::sort(w.begin(), w.end());
  // Alone: begun after every earlier one ended, and ended before the next one began.
  double ended = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < w.size(); ++j) {
    const auto [start, end, bytes] = w[j];
    if (start >= ended && (j + 1 == w.size() || end <= std::get<0>(w[j + 1]))) {
      out.disk_writes[h].push_back({bytes, end - start, file});
    }
    ended = std::max(ended, end);
  }
}

// Adds to `gap` the time between consecutive operations of `rank` inside the application's
// iterations (both tagged with one) and the number of its compute calls there: what the application
// does between the operations it traces (its loops, its bookkeeping, the runtime's dispatch). Outside
// them, before the clock and after (LU's gather of the factors), nothing is predicted.
void add_call_gaps(const hetperf::TraceRank& rank, std::pair<double, std::size_t>& gap) {
  const hetperf::TraceEvent* previous = nullptr;
  for (const auto& e : rank.events) {
    if (e.iteration < 0) {
      previous = nullptr;
      continue;
    }
    if (previous) gap.first += std::max(0.0, e.start_s - previous->end_s);
    if (hetperf::is_compute(e.op)) ++gap.second;
    previous = &e;
  }
}

// A run alone on one computer with no more ranks than cores: its ranks' CPU over their wall time, the
// share of a core a rank gets there (ComputerData::alone_cpu_s).
void add_alone_usage(const JsonNode& root, const RunFacts& facts, std::map<std::string, ComputerData>& data) {
  const auto usage = root.object("run").optional("usage");
  if (!usage || facts.across) return;
  const auto& [h, n] = *facts.on_host.begin();
  data[h].alone_cpu_s += usage->number("cpu_s", Range::kNonNegative);
  data[h].alone_rank_wall_s += n * usage->number("wall_s", Range::kNonNegative);
}

}  // namespace

std::string format(const char* fmt, double a, double b, double c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// The rank's events with each laswp and getrf shortened by the re-touched pages' charge the simulator
// adds back (hetperf::RestClock) on its computer `h`: the operation models are fitted
// on what is left, never less than a tenth of a call. What was left out is noted. Without a curve
// there, the rank's own events; else `events`, filled.
static const std::vector<TraceEvent>& without_retouch(const TraceRank& rank, const TraceFitOptions& o,
                                                      const std::string& h, const std::string& file, TraceFit& out,
                                                      std::vector<TraceEvent>& events) {
  const auto curve = o.page_retouch.find(h);
  if (curve == o.page_retouch.end() || curve->second.ages_s.empty()) return rank.events;
  events = rank.events;
  RestClock rest;
  double left_out_s = 0;
  for (TraceEvent& e : events) {
    if (!is_compute(e.op)) {
      rest.waited(std::max(0.0, e.end_s - e.start_s));
      continue;
    }
    const double charge = rest.charge_s(curve->second, e.op, e.m, e.n, e.iteration);
    const double cut = std::clamp(charge, 0.0, 0.9 * std::max(0.0, e.end_s - e.start_s));
    e.end_s -= cut;
    left_out_s += cut;
  }
  if (left_out_s > 0) {
    out.notes.push_back(file + ": rank " + std::to_string(rank.rank) + " on " + h +
                        format(": %.4g s of re-touched pages left out of its laswp and getrf calls", left_out_s));
  }
  return events;
}

// Reads one trace into `data` (calls of ranks not outnumbering their computer's cores, with their
// concurrency; messages within one host), its large sends across hosts and its calibrated range.
void read_trace(const std::filesystem::path& path, std::size_t f, const TraceFitOptions& o, TraceFit& out,
                std::map<std::string, ComputerData>& data) {
  const std::string file = path.string();
  const nlohmann::json j = read_json_file(path);
  const hetperf::TraceFile trace = hetperf::trace_from_json(j, file);
  const JsonNode root(j, file);
  if (trace.backend != "mpi")
    root.field("backend").fail("\"mpi\": a real run's trace (a simulated trace is not a measurement)");
  const RunFacts facts = run_facts(root.object("run"), o, out, file);
  const int ranks = static_cast<int>(facts.rank_host.size());
  extend_range(out, facts, root, trace);
  for (const auto& [h, n] : facts.on_host) {
    out.traces_of[h].push_back(path);
    data[h].cores = facts.cores_of.at(h);
  }
  std::map<std::string, std::vector<std::pair<double, double>>> intervals;  // host -> compute calls (start, end)
  std::map<std::string, std::vector<std::tuple<double, double, std::uint64_t>>>
      writes;  // host -> disk writes (start, end, bytes)
  std::map<std::string, std::vector<Call>> host_calls;
  std::map<std::string, std::pair<double, std::size_t>> gaps;  // host -> Σ time between calls, compute calls
  std::size_t unusable = 0;
  std::set<std::string> sliced;
  for (std::size_t i = 0; i < trace.ranks.size(); ++i) {
    const auto& rank = trace.ranks[i];
    if (rank.rank < 0 || rank.rank >= ranks) root.field("ranks").fail("ranks 0 to " + std::to_string(ranks - 1));
    const std::string& h = facts.rank_host[static_cast<std::size_t>(rank.rank)];
    network_sends(root, facts, i, rank, o, out);
    if (facts.on_host.at(h) > facts.cores_of.at(h)) {
      sliced.insert(h);  // time-slicing: the simulator's time-sliced cores model it on top
      for (const auto& e : rank.events) {
        if (e.cpu_s > 0 && !operation_features(e.op).empty())
          data[h].cpu_calls[e.op].push_back(Call{operation_call(e), e.cpu_s, f, 1});
      }
      continue;
    }
    add_call_gaps(rank, gaps[h]);
    std::vector<TraceEvent> corrected;
    for (const auto& e : without_retouch(rank, o, h, file, out, corrected)) {
      if (e.op == "disk_write" && e.end_s >= e.start_s) writes[h].emplace_back(e.start_s, e.end_s, e.bytes);
      if (operation_features(e.op).empty()) continue;  // messages, barriers, disk
      if (!(e.end_s > e.start_s)) {
        ++unusable;  // below the clock's resolution: no relative error can be taken
        continue;
      }
      intervals[h].emplace_back(e.start_s, e.end_s);
      host_calls[h].push_back(Call{operation_call(e), e.end_s - e.start_s, f, 1});
    }
  }
  for (auto& [h, calls] : host_calls) {
    // Ranks of one host share its clock (one origin per host), so their calls overlap as they ran.
    const std::vector<int> k =
        facts.host_clock ? concurrency_at_midpoints(intervals[h]) : std::vector<int>(calls.size(), 1);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      calls[i].concurrency = k[i];
      data[h].calls[calls[i].call.op].push_back(calls[i]);
    }
  }
  for (auto& [h, w] : writes) alone_disk_writes(h, w, facts.host_clock, file, out);
  for (const auto& [h, g] : gaps) {
    if (g.second > 0) data[h].call_gaps_s.push_back(g.first / static_cast<double>(g.second));
  }
  for (const auto& h : sliced) {
    out.notes.push_back(file + ": " + std::to_string(facts.on_host.at(h)) + " ranks on " +
                        std::to_string(facts.cores_of.at(h)) + " cores of " + h +
                        ": its times include the ranks' time-slicing, which the simulator's time-sliced "
                        "cores model on top; not fitted, but for its calls timed on their CPU clock");
  }
  if (sliced.empty()) add_alone_usage(root, facts, data);
  if (unusable > 0) out.notes.push_back(file + ": " + std::to_string(unusable) + " calls of zero duration not fitted");
  // Messages within one host whose ranks do not outnumber its cores: hosts keep their own clock
  // origins (MpiRuntime), so a send and its receive on two hosts cannot be compared; between
  // computers the network model holds.
  if (ranks > 1 && facts.host_clock) {
    for (const Message& m : matched_messages(trace, f)) {
      const std::string& h = facts.rank_host[static_cast<std::size_t>(m.src)];
      if (h != facts.rank_host[static_cast<std::size_t>(m.dst)] || sliced.count(h)) continue;
      data[h].messages.push_back(m);
    }
  }
}

// An operation no run timed with at most as many ranks as cores (on a testbed computer of one core the
// integration's master and worker always share it) is fitted on its calls' CPU time, over the share of
// a core a rank gets on the computer when alone (a CPU quota): the time the call takes alone, which
// the time-sliced cores then stretch by the turns. The computer's other runs give that share; without
// them the calls are not fitted.
void use_cpu_timed_calls(const std::string& computer, ComputerData& d, TraceFit& out) {
  for (auto& [op, calls] : d.cpu_calls) {
    if (d.calls.count(op)) continue;  // timed alone: those times hold
    if (!(d.alone_rank_wall_s > 0 && d.alone_cpu_s > 0)) {
      out.notes.push_back(computer + " " + op + ": " + std::to_string(calls.size()) +
                          " calls timed on their CPU clock, but no run alone on the computer tells the share of a "
                          "core a rank gets there; not fitted");
      continue;
    }
    const double share = std::min(1.0, d.alone_cpu_s / d.alone_rank_wall_s);
    for (Call& c : calls) c.t /= share;
    out.report.push_back(computer + " " + op + ": " + std::to_string(calls.size()) +
                         format(" calls timed on their CPU clock (ranks outnumbered the cores), over the share of a "
                                "core a rank gets alone there, %.3f",
                                share));
    d.calls[op] = std::move(calls);
  }
  d.cpu_calls.clear();
}

}  // namespace hetperf::calibrate::detail
