// Operation models fitted on application traces (see trace_fit.hpp).
#include "hetperf/calibrate/trace_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <Eigen/Dense>

#include "hetperf/apps/trace_file.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::calibrate {
namespace {

struct Call {
  OperationCall call;
  double t = 0;
  std::size_t run = 0;  // index of its trace
};

struct Message {
  std::uint64_t bytes = 0;
  double t = 0;         // from both sides ready to the receive's end
  std::size_t run = 0;
  int src = 0, dst = 0;  // ranks
};

// The trace's messages, each send (or isend) matched with its receive in order per (source,
// destination, tag), as MPI matches them.
std::vector<Message> matched_messages(const apps::TraceFile& trace, std::size_t run) {
  std::map<std::tuple<int, int, int>, std::vector<const apps::TraceEvent*>> sends, receives;
  for (const auto& rank : trace.ranks) {
    for (const auto& e : rank.events) {
      if (e.op == "send" || e.op == "isend") sends[{rank.rank, e.peer, e.tag}].push_back(&e);
      if (e.op == "recv") receives[{e.peer, rank.rank, e.tag}].push_back(&e);
    }
  }
  std::vector<Message> out;
  for (const auto& [key, list] : sends) {
    auto r = receives.find(key);
    if (r == receives.end()) continue;
    for (std::size_t i = 0; i < std::min(list.size(), r->second.size()); ++i) {
      const apps::TraceEvent& send = *list[i];
      const apps::TraceEvent& recv = *r->second[i];
      out.push_back({send.bytes, std::max(0.0, recv.end_s - std::max(send.start_s, recv.start_s)), run,
                     std::get<0>(key), std::get<1>(key)});
    }
  }
  return out;
}

OperationCall operation_call(const apps::TraceEvent& e) {
  OperationCall c{e.op, static_cast<double>(e.m), static_cast<double>(e.n), static_cast<double>(e.k), 0};
  if (e.op == "integrate") c.steps = static_cast<double>(e.m), c.m = 0;  // the runtime records steps as m
  return c;
}

// Weighted least squares minimising Σ ((x_i·β − t_i) / t_i)².
std::vector<double> fit_relative(const std::vector<const Call*>& calls, std::size_t features) {
  Eigen::MatrixXd a(calls.size(), features);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(calls.size()));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::vector<double> x = feature_values(calls[i]->call);
    for (std::size_t j = 0; j < features; ++j) a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = x[j] / calls[i]->t;
  }
  // Columns scaled to a largest entry of 1: the features span many orders of magnitude.
  Eigen::VectorXd scale(static_cast<Eigen::Index>(features));
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double s = a.col(j).cwiseAbs().maxCoeff();
    scale(j) = s > 0 ? s : 1;
    a.col(j) /= scale(j);
  }
  Eigen::VectorXd beta = a.completeOrthogonalDecomposition().solve(b);
  std::vector<double> out(features);
  for (std::size_t j = 0; j < features; ++j) out[j] = beta(static_cast<Eigen::Index>(j)) / scale(static_cast<Eigen::Index>(j));
  return out;
}

// The order statistics at probabilities (i + ½)/q (all the values when there are at most q).
std::vector<double> equally_likely(std::vector<double> v, std::size_t q) {
  std::sort(v.begin(), v.end());
  if (v.size() <= q) return v;
  std::vector<double> out;
  for (std::size_t i = 0; i < q; ++i) {
    const double pos = (static_cast<double>(i) + 0.5) / static_cast<double>(q) * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    out.push_back(v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]));
  }
  return out;
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// The state of the calibration run traced in `trace`, added when the models have none yet.
RunState& state_of(AppModels& models, const std::string& trace) {
  auto state = std::find_if(models.runs.begin(), models.runs.end(), [&](const RunState& s) { return s.trace == trace; });
  if (state != models.runs.end()) return *state;
  return models.runs.emplace_back(RunState{trace, {}});
}

// t = l + bytes · g through the median time of each message size (least squares weighted by the
// messages of each size; g >= 0), then every message's delay beyond the line, kept per run.
void fit_messages(const std::vector<Message>& messages, int ranks, const std::vector<std::string>& run_file,
                  const TraceFitOptions& o, AppModels& models, std::vector<std::string>& report, const std::string& label) {
  std::map<std::uint64_t, std::vector<double>> by_size;
  for (const auto& m : messages) by_size[m.bytes].push_back(m.t);
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [bytes, times] : by_size) {
    const double w = static_cast<double>(times.size()), x = static_cast<double>(bytes), y = median(times);
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  MessageModel model;
  model.ranks = ranks;
  const double det = sw * sxx - sx * sx;
  model.seconds_per_byte = det > 0 ? std::max(0.0, (sw * sxy - sx * sy) / det) : 0;
  model.latency_s = (sy - model.seconds_per_byte * sx) / sw;
  model.min_bytes = by_size.begin()->first;
  model.max_bytes = by_size.rbegin()->first;
  model.messages = messages.size();
  std::map<std::size_t, std::vector<double>> delays;
  for (const auto& m : messages) delays[m.run].push_back(m.t - model.time_s(m.bytes));
  std::vector<double> all;
  for (auto& [run, d] : delays) {
    all.insert(all.end(), d.begin(), d.end());
    if (std::find(model.traces.begin(), model.traces.end(), run_file[run]) == model.traces.end()) model.traces.push_back(run_file[run]);
    state_of(models, run_file[run]).message_delays_s = equally_likely(d, o.values);
  }
  std::sort(all.begin(), all.end());
  report.push_back(label + ": " + std::to_string(model.messages) + " messages in " + std::to_string(delays.size()) +
                   " runs, " + format("l = %.1f us, b = %.3g GB/s, delays beyond the line: median %.3g ms", 1e6 * model.latency_s,
                                      model.seconds_per_byte > 0 ? 1e-9 / model.seconds_per_byte : INFINITY, 1e3 * median(all)) +
                   format(", 90th percentile %.3g ms", 1e3 * quantile_nearest_rank(all, 0.9)));
  models.messages.push_back(model);
}

}  // namespace

TraceFit fit_traces(const std::vector<std::filesystem::path>& files, const TraceFitOptions& o) {
  TraceFit out;
  // (computer, op, ranks) -> calls
  std::map<std::tuple<std::string, std::string, int>, std::vector<Call>> groups;
  std::map<std::pair<std::string, int>, std::vector<Message>> message_groups;  // (computer, ranks)
  std::vector<std::string> run_file(files.size());
  std::vector<std::string> run_computer(files.size());
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string file = files[f].string();
    const nlohmann::json j = read_json_file(files[f]);
    const apps::TraceFile trace = apps::trace_from_json(j, file);
    const JsonNode root(j, file);
    if (trace.backend != "mpi") {
      root.field("backend").fail("\"mpi\": a real run's trace (a simulated trace is not a measurement)");
    }
    const JsonNode run = root.object("run");
    const std::string host = run.string("host");
    const int ranks = static_cast<int>(run.integer("ranks", 1, 1 << 20));
    const int cores = static_cast<int>(run.integer("cores", 1, 1 << 20));
    // Every rank's host, when the trace records them (a run across hosts): each rank's calls go to
    // the computer it ran on, keyed by the ranks on that computer. Older traces: all on `host`.
    std::vector<std::string> rank_host(static_cast<std::size_t>(ranks), host);
    std::map<std::string, int> on_host, cores_of;
    if (const auto listed = run.optional("rank_hosts")) {
      const std::vector<JsonNode> names = listed->items();
      if (names.size() != rank_host.size()) {
        run.field("rank_hosts").fail("one host per rank (" + std::to_string(ranks) + "), got " + std::to_string(names.size()));
      }
      for (std::size_t r = 0; r < names.size(); ++r) rank_host[r] = names[r].as_string();
    }
    const auto host_cores = run.optional("host_cores");
    for (const auto& h : rank_host) {
      ++on_host[h];
      cores_of[h] = host_cores ? static_cast<int>(host_cores->integer(h, 1, 1 << 20)) : cores;
    }
    const bool across = on_host.size() > 1;
    auto computer_of = [&](const std::string& h) { return o.computer.empty() || across ? h : o.computer; };
    if (across && !o.computer.empty()) {
      out.notes.push_back(file + ": ranks on " + std::to_string(on_host.size()) + " hosts: each rank's calls fitted under "
                          "its own host, not under " + o.computer);
    }
    run_file[f] = file;
    run_computer[f] = computer_of(host);
    for (const auto& [h, n] : on_host) out.traces_of[computer_of(h)].push_back(files[f]);
    std::size_t unusable = 0;
    std::set<std::string> sliced;
    for (std::size_t i = 0; i < trace.ranks.size(); ++i) {
      const auto& rank = trace.ranks[i];
      if (rank.rank < 0 || rank.rank >= ranks) root.field("ranks").fail("ranks 0 to " + std::to_string(ranks - 1));
      const std::string& h = rank_host[static_cast<std::size_t>(rank.rank)];
      for (std::size_t k = 0; k < rank.events.size(); ++k) {
        const auto& e = rank.events[k];
        if ((e.op == "send" || e.op == "isend" || e.op == "recv") && (e.peer < 0 || e.peer >= ranks)) {
          root.array("ranks")[i].array("events")[k].field("peer").fail("a rank 0 to " + std::to_string(ranks - 1) +
                                                                        " (the other end of the " + e.op + ")");
        }
        // A large blocking send to another host: for the network's send buffer.
        if (e.op != "send" || e.bytes <= o.eager_limit_bytes || rank_host[static_cast<std::size_t>(e.peer)] == h) continue;
        const bool after_send = k > 0 && (rank.events[k - 1].op == "send" || rank.events[k - 1].op == "isend");
        out.network_sends.push_back({e.bytes, std::max(0.0, e.end_s - e.start_s), after_send, file});
      }
      if (on_host[h] > cores_of[h]) {
        sliced.insert(h);  // time-slicing: the simulator's processor sharing models it on top
        continue;
      }
      for (const auto& e : rank.events) {
        if (operation_features(e.op).empty()) continue;  // messages, barriers, disk
        if (!(e.end_s > e.start_s)) {
          ++unusable;  // below the clock's resolution: no relative error can be taken
          continue;
        }
        groups[{computer_of(h), e.op, on_host[h]}].push_back(Call{operation_call(e), e.end_s - e.start_s, f});
      }
    }
    for (const auto& h : sliced) {
      out.notes.push_back(file + ": " + std::to_string(on_host[h]) + " ranks on " + std::to_string(cores_of[h]) + " cores of " +
                          h + ": its kernel times include the ranks' time-slicing, which the simulator's processor "
                          "sharing models on top; not fitted");
    }
    if (unusable > 0) out.notes.push_back(file + ": " + std::to_string(unusable) + " calls of zero duration not fitted");
    // Messages within one host only, keyed by the ranks on it: hosts keep their own clock origins
    // (MpiRuntime), so a send and its receive on two hosts cannot be compared; between computers the
    // network model holds. Ranks of one host share its origin in traces that say so
    // ("clock_origin": "host"; older traces of runs across hosts did not). On an oversubscribed
    // host the times include the receiver's wait to be scheduled in: the regime it is used for.
    const auto origin = run.optional("clock_origin");
    if (ranks > 1 && (!across || (origin && origin->as_string() == "host"))) {
      for (const Message& m : matched_messages(trace, f)) {
        const std::string& h = rank_host[static_cast<std::size_t>(m.src)];
        if (h != rank_host[static_cast<std::size_t>(m.dst)]) continue;
        message_groups[{computer_of(h), on_host[h]}].push_back(m);
      }
    }
  }

  for (auto& [key, calls] : groups) {
    const auto& [computer, op, ranks] = key;
    const std::vector<std::string>& features = operation_features(op);
    const std::string label = computer + " " + op + " (" + std::to_string(ranks) + " ranks)";
    if (calls.size() < features.size() + 2) {
      out.notes.push_back(label + ": " + std::to_string(calls.size()) + " calls, too few for its " +
                          std::to_string(features.size()) + " terms; not fitted");
      continue;
    }
    std::vector<const Call*> all;
    for (const Call& c : calls) all.push_back(&c);
    OperationModel m;
    m.op = op;
    m.ranks = ranks;
    m.features = features;
    m.coefficients_s = fit_relative(all, features.size());
    m.calls = calls.size();
    m.feature_min.assign(features.size(), INFINITY);
    m.feature_max.assign(features.size(), 0);
    std::map<std::size_t, std::pair<double, double>> time_of_run;  // Σ measured, Σ predicted
    std::vector<double> predicted(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const std::vector<double> x = feature_values(calls[i].call);
      for (std::size_t j = 0; j < x.size(); ++j) {
        m.feature_min[j] = std::min(m.feature_min[j], x[j]);
        m.feature_max[j] = std::max(m.feature_max[j], x[j]);
      }
      predicted[i] = m.time_s(calls[i].call);
      if (predicted[i] > 0) {
        time_of_run[calls[i].run].first += calls[i].t;
        time_of_run[calls[i].run].second += predicted[i];
      }
    }
    // The runs' state factors, then the residuals around them. A run's factor is its calls' measured
    // time over their predicted time, summed (a run's time is the sum of its calls: the median of the
    // per-call ratios follows the many short calls, which a CPU quota's periods slow less often than
    // the long ones, and came out 1.0 on a capped testbed computer where the sums said 2.0). The
    // relative least squares leans low on right-skewed times; the form is rescaled so that the median
    // run's factor is 1: the point prediction is then that of a typical run.
    std::map<std::size_t, double> factor;
    for (auto& [run, sums] : time_of_run) factor[run] = sums.first / sums.second;
    if (!factor.empty()) {
      std::vector<double> f;
      for (const auto& [run, v] : factor) f.push_back(v);
      const double typical = median(f);
      for (double& c : m.coefficients_s) c *= typical;
      for (auto& [run, v] : factor) v /= typical;
      for (double& p : predicted) p *= typical;
    }
    std::vector<std::pair<double, double>> residual;  // (t̂, ε)
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (predicted[i] > 0) residual.emplace_back(predicted[i], calls[i].t / (predicted[i] * factor[calls[i].run]));
    }
    if (residual.size() < calls.size()) {
      out.notes.push_back(label + ": the fitted form is zero at " + std::to_string(calls.size() - residual.size()) +
                          " of its calls");
    }
    if (residual.empty()) continue;
    std::sort(residual.begin(), residual.end());
    const std::size_t bands = std::clamp<std::size_t>(residual.size() / std::max<std::size_t>(1, o.calls_per_band), 1, 4);
    std::vector<double> abs_dev;
    for (std::size_t b = 0; b < bands; ++b) {
      const std::size_t from = residual.size() * b / bands, to = residual.size() * (b + 1) / bands;
      std::vector<double> eps;
      for (std::size_t i = from; i < to; ++i) eps.push_back(residual[i].second);
      m.residuals.push_back({residual[to - 1].first, equally_likely(eps, o.values)});
    }
    for (const auto& r : residual) abs_dev.push_back(std::fabs(r.second - 1));
    m.median_abs_residual = median(abs_dev);
    for (const auto& [run, f] : factor) {
      if (std::find(m.traces.begin(), m.traces.end(), run_file[run]) == m.traces.end()) m.traces.push_back(run_file[run]);
    }
    AppModels& models = out.by_computer[computer];
    for (const auto& [run, f] : factor) state_of(models, run_file[run]).factor[op] = f;
    std::vector<double> f_values;
    for (const auto& [run, f] : factor) f_values.push_back(f);
    out.report.push_back(label + ": " + std::to_string(m.calls) + " calls in " + std::to_string(factor.size()) + " runs, " +
                         format("median |ε − 1| %.1f%%, run factors %.3f to %.3f", 100 * m.median_abs_residual,
                                *std::min_element(f_values.begin(), f_values.end()),
                                *std::max_element(f_values.begin(), f_values.end())));
    models.operations.push_back(std::move(m));
  }
  for (auto& [key, messages] : message_groups) {
    const auto& [computer, ranks] = key;
    const std::string label = computer + " messages (" + std::to_string(ranks) + " ranks)";
    if (messages.size() < 4) {
      out.notes.push_back(label + ": " + std::to_string(messages.size()) + " matched messages, too few; not fitted");
      continue;
    }
    fit_messages(messages, ranks, run_file, o, out.by_computer[computer], out.report, label);
  }
  // A run without calls of an operation keeps the neutral factor 1 for it (RunState::factor is sparse).
  return out;
}

}  // namespace hetperf::calibrate
