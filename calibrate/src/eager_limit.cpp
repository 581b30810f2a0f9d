// The eager limit from the ping-pong's busy sends (see eager_limit.hpp).
#include "hetperf/calibrate/eager_limit.hpp"

#include <cstdio>
#include <numeric>

namespace hetperf::calibrate {

namespace {

std::string describe(const BusySend& b) {
  char text[160];
  std::snprintf(text, sizeof text, "%llu bytes in %.3g ms with the receiver busy for %.3g ms",
                static_cast<unsigned long long>(b.size_bytes), b.send_s.median * 1e3, b.receiver_busy_s * 1e3);
  return text;
}

}  // namespace

std::optional<EagerLimit> eager_limit_from_pingpong(const NetMeasurement& net, const std::string& file) {
  const BusySend* last_eager = nullptr;
  const BusySend* first_waiting = nullptr;
  for (const BusySend& b : net.busy_sends) {  // ascending sizes (measurement_from_json)
    if (!b.eager()) {
      first_waiting = &b;
      break;
    }
    last_eager = &b;
  }
  if (!last_eager && !first_waiting) return std::nullopt;
  EagerLimit e;
  e.bytes = last_eager ? last_eager->size_bytes : 0;
  const std::string where = file + " ($.probes.net.busy_sends, " +
                            (net.between_hosts() ? net.hosts[0] + " to " + net.hosts[1] : "loopback") + "): ";
  if (last_eager && first_waiting) {
    e.source = where + "eager " + describe(*last_eager) + "; waited " + describe(*first_waiting);
  } else if (last_eager) {
    e.source = where + "every size measured went eagerly, up to " + describe(*last_eager) +
               "; larger messages are taken to wait";
  } else {
    e.source = where + "every size measured waited for its receiver, from " + describe(*first_waiting);
  }
  return e;
}

std::vector<std::optional<EagerLimit>> file_eager_limits(const std::vector<CalibrationInput>& inputs) {
  std::vector<std::optional<EagerLimit>> limits;
  for (const CalibrationInput& in : inputs) {
    const auto& net = in.measurement.net;
    limits.push_back(net ? eager_limit_from_pingpong(*net, in.file) : std::nullopt);
  }
  return limits;
}

std::vector<double> protocol_limits(const std::vector<std::optional<EagerLimit>>& limits,
                                    const std::vector<std::size_t>& files) {
  std::optional<double> smallest;
  for (std::size_t idx : files) {
    const auto& e = limits[idx];
    if (e && (!smallest || static_cast<double>(e->bytes) < *smallest)) smallest = static_cast<double>(e->bytes);
  }
  return smallest ? std::vector<double>{*smallest} : std::vector<double>{};
}

std::vector<double> protocol_limits(const std::vector<std::optional<EagerLimit>>& limits) {
  std::vector<std::size_t> every(limits.size());
  std::iota(every.begin(), every.end(), std::size_t{0});
  return protocol_limits(limits, every);
}

void eager_limits_from_probes(const std::vector<CalibrationInput>& inputs,
                              const std::vector<std::optional<EagerLimit>>& limits, Profile& p) {
  std::optional<EagerLimit> between, loopback;
  auto smaller = [](std::optional<EagerLimit>& into, const EagerLimit& e) {
    if (!into || e.bytes < into->bytes) into = e;
  };
  for (std::size_t idx = 0; idx < inputs.size(); ++idx) {
    if (!limits[idx]) continue;
    if (inputs[idx].measurement.net->between_hosts()) {
      smaller(between, *limits[idx]);
    } else {
      p.computers[idx].local_eager_limit = *limits[idx];
      smaller(loopback, *limits[idx]);
    }
  }
  p.network.eager_limit = between ? between : loopback;
}

}  // namespace hetperf::calibrate
