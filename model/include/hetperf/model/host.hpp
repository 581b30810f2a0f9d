// Facts about the machine a measurement or run was made on, recorded in every output for provenance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

class JsonNode;

// A CPU bandwidth limit on the process's control group (cgroup v1 cpu.cfs_quota_us over
// cpu.cfs_period_us, v2 cpu.max): it runs for `share` · `period_s` of CPU time per period, then waits
// for the next one. The tightest of its group and their ancestors.
struct CpuQuota {
  double share = 1;     // "share": quota / period, in cores
  double period_s = 0;  // "period_s"
};

struct HostInfo {
  std::string hostname;
  std::string cpu_model;
  int cores = 0;                                 // logical CPUs this process may run on (its affinity)
  std::uint64_t memory_bytes = 0;                // MemTotal
  std::uint64_t swap_bytes = 0;                  // SwapTotal
  std::string kernel;                            // uname -sr
  std::string compiler;                          // compiler that built hetperf
  std::map<std::string, std::string> libraries;  // library -> version
  std::string time_utc;                          // ISO 8601, when the facts were taken
  // "notes" (optional): what about this host may bend its figures, e.g. a BLAS running kernels
  // narrower than the CPU's vector units.
  std::vector<std::string> notes;
  // "cpu_quota" (optional): the CPU bandwidth limit the probe ran under; absent: none.
  std::optional<CpuQuota> cpu_quota = {};
};

nlohmann::json to_json(const HostInfo& h);
HostInfo host_info_from_json(const JsonNode& node);

// A field of /proc/meminfo ("MemTotal", "MemAvailable", "SwapFree", ...) in bytes; nullopt where it
// cannot be read.
std::optional<std::uint64_t> meminfo_bytes(std::string_view key);

// Memory the kernel says is available for new work (/proc/meminfo MemAvailable), or the address-space
// limit (RLIMIT_AS) when that is smaller, bytes; nullopt where neither is known.
std::optional<std::uint64_t> available_memory_bytes();

// The logical CPUs this process may run on: its affinity (a cpuset cgroup, a testbed computer's
// cores, taskset), not all the machine's (inside a one-core testbed computer the online count says 2);
// the online count where the affinity cannot be read. At least 1.
int usable_cpus();

// Current UTC time as ISO 8601 ("2026-11-21T14:16:00Z"). Not used inside the simulator.
std::string utc_now_iso8601();

}  // namespace hetperf
