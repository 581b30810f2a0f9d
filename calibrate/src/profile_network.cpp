#include "profile_network.hpp"

#include <algorithm>
#include <cmath>

#include "figures.hpp"
#include "hetperf/calibrate/eager_limit.hpp"
#include "hetperf/calibrate/network_fit.hpp"
#include "hetperf/calibrate/send_buffer.hpp"
#include "hetperf/model/error.hpp"

namespace hetperf::calibrate::detail {
namespace {

// The files that measured a pair, for messages.
std::string pair_source(const std::vector<CalibrationInput>& inputs, const PairData& pair) {
  std::string where = inputs[pair.inputs.front()].file;
  if (pair.inputs.size() > 1) where += " (and " + std::to_string(pair.inputs.size() - 1) + " more files of this pair)";
  return where;
}

std::vector<std::string> pair_hosts(const NetMeasurement& net, const std::string& machine) {
  std::vector<std::string> h = net.hosts;
  if (h.empty()) h = {machine};
  if (h.size() == 1) h.push_back(h.front());
  h.resize(2);
  std::sort(h.begin(), h.end());
  return h;
}

struct NetworkResult {
  double latency_s = 0, bandwidth_bytes_per_s = 0;
  std::vector<MessageRegime> regimes;
  nlohmann::json fit;
  NetworkFitSummary summary;
};

// Fits, per size, the mean over files of the median one-way times in `times_by_size`, split at the
// measured protocol switches `limits`, and describes the result, including what LogGP parameters a
// ping-pong determines.
NetworkResult fit_pair(const std::function<void(FitRecord)>& record, Profile& profile, const std::string& name,
                       const std::string& where, const std::map<std::uint64_t, std::vector<double>>& times_by_size,
                       const LogGPParameters* loggp, const std::vector<double>& limits) {
  std::vector<double> x, y;
  for (const auto& [size, times] : times_by_size) {
    double sum = 0;
    for (double t : times) sum += t;
    x.push_back(static_cast<double>(size));
    y.push_back(sum / static_cast<double>(times.size()));
  }
  const NetworkFitOptions o{.name = name, .protocol_limits_bytes = limits};
  NetworkResult r;
  r.summary = fit_at(where, "$.probes.net.pingpong", [&] { return fit_network(x, y, o); });
  const NetworkFitSummary& s = r.summary;
  double inv_b = s.overall.parameter("seconds_per_byte").value;
  if (!(inv_b > 0)) {
    throw InputError(where +
                     ": $.probes.net.pingpong: one-way time does not grow with message size; cannot fit t = l + s/b");
  }
  r.latency_s = std::max(0.0, s.overall.parameter("latency_s").value);
  if (s.overall.parameter("latency_s").value < 0) {
    profile.warnings.push_back(name + ": fitted latency is negative (" + fixed(s.overall.parameter("latency_s").value) +
                               " s); set to 0");
  }
  r.bandwidth_bytes_per_s = 1 / inv_b;
  nlohmann::json regimes = nlohmann::json::array();
  for (const auto& g : s.regimes) {
    r.regimes.push_back({g.min_size_bytes, g.latency_s, g.seconds_per_byte});
    regimes.push_back(to_json(g, o.outlier_threshold));
    std::vector<double> gx, gy;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i] >= static_cast<double>(g.min_size_bytes) && x[i] <= static_cast<double>(g.max_size_bytes)) {
        gx.push_back(x[i]), gy.push_back(y[i]);
      }
    }
    record({g.fit, gx, gy, "message size (bytes)", "one-way time (s)", true, g.slope_meaningful()});
  }
  record({s.overall, x, y, "message size (bytes)", "one-way time (s)", true, true});
  const NetworkRegime& last = s.regimes.back();
  double lo = s.time_s(kLoMessageBytes);
  if (auto it = times_by_size.find(static_cast<std::uint64_t>(kLoMessageBytes)); it != times_by_size.end()) {
    lo = y[static_cast<std::size_t>(std::distance(times_by_size.begin(), it))];
  }
  r.fit = {{"model",
            "t = l + s/b per protocol regime, weighted least squares on relative errors (weights 1/t²) "
            "over the per-size median one-way times; breakpoints by dynamic programming"},
           {"overall", to_json(s.overall)},
           {"regimes", regimes},
           {"piecewise_r2", s.piecewise_r2},
           {"selection", s.selection},
           {"piecewise_r2_note",
            "regimes with r2_meaningful false have a slope indistinguishable from 0; their R² "
            "compares noise with noise and raises no warning"}};
  if (loggp) {
    // LogGP measured the Netgauge way by the probe; o is the mean of the send and receive overheads.
    double o = (central(loggp->send_overhead_s) + central(loggp->receive_overhead_s)) / 2;
    r.fit["loggp"] = {{"source", "measured ($.probes.net.loggp)"},
                      {"L_s", loggp->latency_s},
                      {"o_send_s", figure(loggp->send_overhead_s)},
                      {"o_receive_s", figure(loggp->receive_overhead_s)},
                      {"o_s", o},
                      {"g_s", figure(loggp->gap_s)},
                      {"G_s_per_byte", loggp->gap_per_byte_s},
                      {"G_s_per_byte_from_fit", last.seconds_per_byte},
                      {"small_size_bytes", loggp->small_size_bytes},
                      {"large_size_bytes", loggp->large_size_bytes},
                      {"lo_s", lo},
                      {"lo_from_loggp_s", 2 * o + loggp->latency_s}};
  } else {
    r.fit["loggp"] = {{"source", "derived from the ping-pong fit"},
                      {"lo_s", lo},
                      {"L_plus_2o_s", lo},
                      {"G_s_per_byte", last.seconds_per_byte},
                      {"L_s", nullptr},
                      {"o_s", nullptr},
                      {"g_s", nullptr},
                      {"note",
                       "a ping-pong gives the one-way time of a 32-byte message, lo = L + 2o (UniMPP paper eq. 7), "
                       "and the per-byte gap G of the largest-size regime; L, o and g are not separable without "
                       "the probe's LogGP measurement ($.probes.net.loggp), which this file does not hold"}};
  }
  return r;
}

// The network's send buffer from the ping-pongs' timed sends between two hosts (PingPongPoint::send_s):
// each sample is a send whose receiver waited, fitted as the applications' sends are
// (send_buffer.hpp). Absent without such samples, or with too few to fit; the line the fit reports is
// kept in its record.
std::optional<SendBuffer> send_buffer_from_probes(const std::vector<CalibrationInput>& inputs,
                                                  const NetworkModel& network) {
  std::vector<NetworkSend> sends;
  for (const CalibrationInput& in : inputs) {
    const auto& net = in.measurement.net;
    if (!net || !net->between_hosts()) continue;
    for (const PingPongPoint& pt : net->pingpong) {
      if (!pt.send_s) continue;
      for (double d : pt.send_s->samples) sends.push_back({pt.size_bytes, d, false, in.file});
    }
  }
  if (sends.empty()) return std::nullopt;
  std::vector<std::string> report;
  auto buffer = fit_send_buffer(sends, network, report);
  if (buffer) {
    buffer->fit["source"] = "$.probes.net.pingpong[*].send_s (the ping-pong's sends to a waiting receiver)";
    buffer->fit["report"] = report.empty() ? std::string() : report.front();
  }
  return buffer;
}

}  // namespace

// File `idx`'s ping-pong into its pair of hosts, its time at 32 bytes, and the computer's hand-off.
void gather_network(const CalibrationInput& in, std::size_t idx, Computer& c, NetworkData& net) {
  const Measurement& m = in.measurement;
  if (!m.net) {
    net.unmeasured.push_back(c.name);
    return;
  }
  PairData& pair = net.pairs[pair_hosts(*m.net, m.machine)];
  pair.hosts = pair_hosts(*m.net, m.machine);
  pair.inputs.push_back(idx);
  if (!pair.loggp && m.net->loggp) pair.loggp = &*m.net->loggp;
  for (std::size_t i = 0; i < m.net->pingpong.size(); ++i) {
    const PingPongPoint& pt = m.net->pingpong[i];
    std::string path = "$.probes.net.pingpong[" + std::to_string(i) + "]";
    const double one_way_s = checked_central(in.file, path + ".one_way_s", pt.one_way_s);
    pair.times_by_size[pt.size_bytes].push_back(one_way_s);
    if (pt.size_bytes == kLoMessageBytes) net.measured_lo[idx] = one_way_s;
  }
  if (const auto& h = m.net->handoff) {
    // The probe's fan-out among oversubscribed ranks: a figure of this computer's scheduler and MPI,
    // not of an application, so profiles built from probes alone predict oversubscribed runs too.
    c.oversubscribed_handoff_s = h->handoff_s;
    nlohmann::json& f = c.fits["communication_cpu"]["handoff_s"];
    f = {{"source", "$.probes.net.handoff"},
         {"cores", h->cores},
         {"bytes", h->bytes},
         {"period_oversubscribed_s", h->period_oversubscribed_s.mean},
         {"handoff_s", h->handoff_s}};
    if (h->period_at_cores_s) f["period_at_cores_s"] = h->period_at_cores_s->mean;
  }
}

// Each pair's network fit, and the whole network's (the only pair's, or all pairs' pooled), its send
// buffer and eager limits. Returns per file the lo its pair's fit gives.
std::vector<std::optional<double>> fit_network_pairs(const std::vector<CalibrationInput>& inputs,
                                                     const NetworkData& net,
                                                     const std::function<void(FitRecord)>& record, Profile& p) {
  std::map<std::uint64_t, std::vector<double>> all_sizes;
  std::vector<std::optional<double>> pair_lo(inputs.size());
  const auto eager = file_eager_limits(inputs);
  for (const auto& [key, pair] : net.pairs) {
    const std::string where = pair_source(inputs, pair);
    NetworkResult r = fit_pair(record, p, "network " + key[0] + " <-> " + key[1], where, pair.times_by_size, pair.loggp,
                               protocol_limits(eager, pair.inputs));
    for (std::size_t idx : pair.inputs) pair_lo[idx] = r.fit["loggp"]["lo_s"].get<double>();
    for (const auto& [size, times] : pair.times_by_size) {
      for (double t : times) all_sizes[size].push_back(t);
    }
    p.network.pairs.push_back({key, r.latency_s, r.bandwidth_bytes_per_s, r.regimes, r.fit});
  }
  LinkModel all = p.network.pairs.front();  // the only pair's, or all pairs' pooled
  if (p.network.pairs.size() > 1) {
    NetworkResult r = fit_pair(record, p, "network (all pairs)", inputs.front().file + " (and the other files)",
                               all_sizes, nullptr, protocol_limits(eager));
    all = {{}, r.latency_s, r.bandwidth_bytes_per_s, r.regimes, r.fit};
  }
  p.network.latency_s = all.latency_s;
  p.network.bandwidth_bytes_per_s = all.bandwidth_bytes_per_s;
  p.network.regimes = all.regimes;
  p.network.fit = all.fit;
  p.network.send_buffer = send_buffer_from_probes(inputs, p.network);
  eager_limits_from_probes(inputs, eager, p);
  return pair_lo;
}

// lo: UniMPP's "overhead + latency" with 32-byte messages (UniMPP paper Table 1), measured when the
// file holds that size, else read off the pair's fit, else the whole network's.
void set_overhead_latency(Profile& p, const NetworkData& net, const std::vector<std::optional<double>>& pair_lo) {
  const double network_lo = p.network.latency_s + kLoMessageBytes / p.network.bandwidth_bytes_per_s;
  for (std::size_t idx = 0; idx < p.computers.size(); ++idx) {
    Computer& c = p.computers[idx];
    const auto& measured = net.measured_lo[idx];
    const double lo = measured ? *measured : pair_lo[idx] ? *pair_lo[idx] : network_lo;
    const char* source = measured       ? "measured at 32 bytes"
                         : pair_lo[idx] ? "fitted network model of this host's pair at 32 bytes"
                                        : "fitted network model of the other machines at 32 bytes";
    c.overhead_latency_s = std::max(0.0, lo);
    c.fits["overhead_latency_s"] = {
        {"message_bytes", kLoMessageBytes}, {"value", c.overhead_latency_s}, {"source", source}};
  }
}

}  // namespace hetperf::calibrate::detail
