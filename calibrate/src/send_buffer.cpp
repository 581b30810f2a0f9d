// The network's send buffer from the applications' sends between hosts (see send_buffer.hpp).
#include "hetperf/calibrate/send_buffer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

namespace hetperf::calibrate {

std::optional<double> kaplan_meier_quantile(const std::vector<double>& values, const std::vector<bool>& censored,
                                            double p) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // At equal values an uncensored one comes first: a value censored at x was still at risk at x.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return values[a] != values[b] ? values[a] < values[b] : (!censored[a] && censored[b]);
  });
  double survival = 1;
  std::size_t at_risk = values.size();
  for (std::size_t i = 0; i < order.size();) {
    const double x = values[order[i]];
    std::size_t events = 0, leaving = 0;
    for (; i < order.size() && values[order[i]] == x; ++i, ++leaving) events += censored[order[i]] ? 0 : 1;
    if (events > 0) {
      survival *= 1 - static_cast<double>(events) / static_cast<double>(at_risk);
      if (1 - survival >= p - 1e-12) return x;
    }
    at_risk -= leaving;
  }
  return std::nullopt;
}

namespace {

// The line t = l + s·g of the regime `bytes` falls in.
std::pair<double, double> line_of(const NetworkModel& net, std::uint64_t bytes) {
  if (net.regimes.empty()) return {net.latency_s, 1 / net.bandwidth_bytes_per_s};
  auto r = std::upper_bound(net.regimes.begin(), net.regimes.end(), bytes,
                            [](std::uint64_t b, const MessageRegime& m) { return b < m.min_size_bytes; });
  const MessageRegime& m = r == net.regimes.begin() ? *r : *std::prev(r);
  return {m.latency_s, m.seconds_per_byte};
}

}  // namespace

std::optional<SendBuffer> fit_send_buffer(const std::vector<NetworkSend>& sends, const NetworkModel& network,
                                          std::vector<std::string>& report) {
  if (sends.empty() || !(network.bandwidth_bytes_per_s > 0)) return std::nullopt;
  std::vector<double> buffered;
  std::vector<bool> censored;
  std::set<std::string> traces;
  std::size_t after_send = 0;
  for (const NetworkSend& s : sends) {
    if (s.after_send) {
      ++after_send;
      continue;
    }
    const auto [l, g] = line_of(network, s.bytes);
    if (!(g > 0)) continue;
    const double bytes = static_cast<double>(s.bytes);
    const double b = bytes - std::max(0.0, s.seconds - std::max(0.0, l)) / g;
    const bool whole = b >= 0.95 * bytes;
    buffered.push_back(whole ? bytes : std::max(0.0, b));
    censored.push_back(whole);
    traces.insert(s.trace);
  }
  const auto uncensored = static_cast<std::size_t>(std::count(censored.begin(), censored.end(), false));
  char line[320];
  if (buffered.size() < 8 || uncensored < 4) {
    std::snprintf(
        line, sizeof line,
        "network send buffer: %zu sends across hosts beyond the eager limit, %zu of them not returning at once; "
        "too few to fit (at least 8 and 4): a large send holds its sender until its message has arrived",
        buffered.size(), uncensored);
    report.push_back(line);
    return std::nullopt;
  }
  const auto median = kaplan_meier_quantile(buffered, censored, 0.5);
  const auto q25 = kaplan_meier_quantile(buffered, censored, 0.25);
  const auto q75 = kaplan_meier_quantile(buffered, censored, 0.75);
  double largest = 0;
  for (std::size_t i = 0; i < buffered.size(); ++i) {
    if (!censored[i]) largest = std::max(largest, buffered[i]);
  }
  SendBuffer out;
  out.bytes = median ? *median : largest;
  out.fit = {{"method",
              "Kaplan-Meier median of B = s - max(0, d - l)/g over the blocking sends between hosts beyond "
              "the eager limit that did not follow another send; a send within 5% of its line's streaming "
              "counts as B >= s"},
             {"sends", buffered.size()},
             {"returned_at_once", buffered.size() - uncensored},
             {"left_out_after_a_send", after_send},
             {"traces", traces.size()},
             {"lower_bound", !median.has_value()}};
  if (q25) out.fit["q25_bytes"] = *q25;
  if (q75) out.fit["q75_bytes"] = *q75;
  auto mb = [](std::optional<double> v) {
    char text[32] = "?";
    if (v) std::snprintf(text, sizeof text, "%.3f", *v / 1e6);
    return std::string(text);
  };
  std::snprintf(line, sizeof line,
                "network send buffer: %s%.3f MB (quartiles %s to %s MB) from %zu sends across hosts beyond the eager "
                "limit, %zu of which returned at once",
                median ? "" : "at least ", out.bytes / 1e6, mb(q25).c_str(), mb(q75).c_str(), buffered.size(),
                buffered.size() - uncensored);
  report.push_back(line);
  return out;
}

}  // namespace hetperf::calibrate
