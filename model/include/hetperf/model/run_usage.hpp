// What a run cost and what the host was doing meanwhile, recorded with every probe and application
// run so that a run taken in a slow spell of a shared machine is visible in the data: the run's wall
// and CPU time, and the host's CPU time over the same interval from /proc/stat, in particular the
// share stolen by the hypervisor for other guests (steal).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace hetperf {

class JsonNode;

struct RunUsage {
  double wall_s = 0;  // "wall_s": monotonic clock, start to stop
  double cpu_s = 0;   // "cpu_s": user + system time of the measured processes
  // Shares of all the host's CPU time over the interval (every CPU, /proc/stat), in [0, 1]; absent
  // where /proc/stat cannot be read.
  std::optional<double> host_busy_share;   // "host_busy_share": user, nice, system, irq, softirq
  std::optional<double> host_steal_share;  // "host_steal_share": steal (a virtual machine's CPU lent away)
};

nlohmann::json to_json(const RunUsage& u);
RunUsage run_usage_from_json(const JsonNode& node);

// Host CPU times in clock ticks from /proc/stat's "cpu" line; nullopt where it cannot be read.
struct HostCpuTicks {
  std::uint64_t busy = 0, steal = 0, total = 0;
};
std::optional<HostCpuTicks> read_host_cpu_ticks();

// Starts at construction; stop() gives the usage so far (CPU time as process_cpu_seconds counts it).
class RunUsageMeter {
 public:
  RunUsageMeter();
  RunUsage stop() const;

 private:
  std::chrono::steady_clock::time_point start_;
  double cpu_start_s_ = 0;
  std::optional<HostCpuTicks> host_start_;
};

// User + system CPU time so far of this process and of its children that have ended (the probes'
// load processes and ping-pong), s.
double process_cpu_seconds();

}  // namespace hetperf
