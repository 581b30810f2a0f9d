// Run usage from the monotonic clock, getrusage and /proc/stat (see run_usage.hpp).
#include "hetperf/model/run_usage.hpp"

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

#include "hetperf/model/json_node.hpp"

namespace hetperf {

nlohmann::json to_json(const RunUsage& u) {
  nlohmann::json j = {{"wall_s", u.wall_s}, {"cpu_s", u.cpu_s}};
  if (u.host_busy_share) j["host_busy_share"] = *u.host_busy_share;
  if (u.host_steal_share) j["host_steal_share"] = *u.host_steal_share;
  return j;
}

RunUsage run_usage_from_json(const JsonNode& node) {
  node.known_fields({"wall_s", "cpu_s", "host_busy_share", "host_steal_share"});
  RunUsage u;
  u.wall_s = node.number("wall_s", Range::kNonNegative);
  u.cpu_s = node.number("cpu_s", Range::kNonNegative);
  if (node.optional("host_busy_share")) u.host_busy_share = node.number("host_busy_share", Range::kFraction);
  if (node.optional("host_steal_share")) u.host_steal_share = node.number("host_steal_share", Range::kFraction);
  return u;
}

std::optional<HostCpuTicks> read_host_cpu_ticks() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line) || line.rfind("cpu ", 0) != 0) return std::nullopt;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is in user)
  std::istringstream ss(line.substr(4));
  std::uint64_t v[8] = {};
  for (auto& x : v) {
    if (!(ss >> x)) return std::nullopt;
  }
  HostCpuTicks t;
  t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
  t.steal = v[7];
  t.total = t.busy + v[3] + v[4] + t.steal;
  return t;
}

double process_cpu_seconds() {
  double s = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    s += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  }
  return s;
}

RunUsageMeter::RunUsageMeter()
    : start_(std::chrono::steady_clock::now()),
      cpu_start_s_(process_cpu_seconds()),
      host_start_(read_host_cpu_ticks()) {}

RunUsage RunUsageMeter::stop() const {
  RunUsage u;
  u.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  u.cpu_s = process_cpu_seconds() - cpu_start_s_;
  auto end = read_host_cpu_ticks();
  if (host_start_ && end && end->total > host_start_->total) {
    const double total = static_cast<double>(end->total - host_start_->total);
    u.host_busy_share = static_cast<double>(end->busy - host_start_->busy) / total;
    u.host_steal_share = static_cast<double>(end->steal - host_start_->steal) / total;
  }
  return u;
}

}  // namespace hetperf
