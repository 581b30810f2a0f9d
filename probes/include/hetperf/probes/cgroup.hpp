// A control group created for one experiment (memory limit for the memory probe, CPU quota in tests),
// removed when the object goes away (also on a second SIGINT, via the clean-up registry). Supports
// cgroup v1 (one hierarchy per controller, /sys/fs/cgroup/<controller>) and cgroup v2 (the unified
// hierarchy, where the controller must already be enabled in the root's cgroup.subtree_control).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "hetperf/model/host.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::probes {

struct CgroupRoot {
  std::filesystem::path path;  // mount point (v1) or unified root (v2)
  int version = 0;             // 1 or 2
};

// Where `controller` ("memory", "cpu") can be used, from /proc/mounts; nullopt with `why` otherwise.
std::optional<CgroupRoot> find_cgroup_root(const std::string& controller, std::string* why);

// The CPU bandwidth limit on this process's control group or one of its ancestors (the tightest share
// among them, with its period), from /proc/self/cgroup and the cpu hierarchy (v1 cpu.cfs_quota_us and
// cpu.cfs_period_us, v2 cpu.max); nullopt where none is set or it cannot be read.
std::optional<CpuQuota> cpu_quota_of_this_process();

// The bytes this process's memory control group and its ancestors still allow (limit − usage, the
// tightest of them: v1 memory.limit_in_bytes and memory.usage_in_bytes, v2 memory.max and
// memory.current; the inactive page cache of memory.stat counted free, as the group reclaims it first);
// nullopt where none has a limit or it cannot be read. Inside a testbed computer
// (validate --testbed) it is that computer's memory.
std::optional<std::uint64_t> memory_headroom_of_this_process();

// rmdir of a cgroup's directory, retried for up to ~2 s while members that were just killed leave;
// true once it is gone (else errno says why).
bool remove_cgroup_directory(const std::filesystem::path& path);

class Cgroup {
 public:
  // Creates <root>/<name>. EnvironmentError when the controller is missing or mkdir is refused.
  static std::unique_ptr<Cgroup> create(const std::string& controller, const std::string& name);
  ~Cgroup();  // rmdir, retried briefly while exiting members leave
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;

  // Writes `value` to the control file; EnvironmentError naming the file on refusal.
  void write(const std::string& file, const std::string& value) const;
  std::string read(const std::string& file) const;
  void add_process(pid_t pid) const;
  int version() const { return version_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  Cgroup(std::filesystem::path path, int version);
  std::filesystem::path path_;
  int version_;
  CleanupRegistration registration_;
};

}  // namespace hetperf::probes
