// A local message line from a loopback ping-pong (see local_line.hpp).
#include "hetperf/calibrate/local_line.hpp"

#include <algorithm>

namespace hetperf::calibrate {

std::optional<MessageModel> local_line_from_pingpong(const Measurement& loopback, const std::string& file) {
  const auto& net = loopback.net;
  if (!net || net->pingpong.empty() || net->hosts.size() != 2 || net->between_hosts()) return std::nullopt;
  constexpr std::uint64_t kLarge = 64u << 10;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const PingPongPoint& p : net->pingpong) {
    if (p.size_bytes < kLarge) continue;
    const double x = static_cast<double>(p.size_bytes), y = p.one_way_s.median;
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double det = n * sxx - sx * sx;
  if (n < 2 || !(det > 0)) return std::nullopt;
  MessageModel line;
  line.seconds_per_byte = std::max(0.0, (n * sxy - sx * sy) / det);
  line.latency_s = std::max(0.0, net->pingpong.front().one_way_s.median);
  line.min_bytes = net->pingpong.front().size_bytes;
  line.max_bytes = net->pingpong.back().size_bytes;
  line.source = file + " (loopback ping-pong on " + net->hosts[0] + ": l at " + std::to_string(line.min_bytes) +
                " bytes, g over the sizes from 64 KiB on)";
  return line;
}

int use_local_line(Profile& profile, const MessageModel& line, const std::optional<EagerLimit>& eager) {
  int given = 0;
  for (Computer& c : profile.computers) {
    if (c.cores != 1 || c.app_models.messages) continue;
    c.app_models.messages = line;
    if (!c.local_eager_limit) c.local_eager_limit = eager;
    ++given;
  }
  return given;
}

}  // namespace hetperf::calibrate
