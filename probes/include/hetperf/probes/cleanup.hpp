// Everything a probe creates (scratch files, child processes, cgroups, swap files) is registered here
// and removed when the probe ends, also on SIGINT and SIGTERM.
//
// Signals: the first SIGINT/SIGTERM only sets a flag. Probes check `interrupted()` between samples
// (repeat_until_precise throws `Interrupted`), unwind, and their RAII guards remove what they made;
// the suite then writes what was measured so far, marked incomplete. A second signal means "now":
// the handler performs the registered clean-up itself with async-signal-safe system calls (kill and
// reap children, swapoff, unlink, rmdir) and ends the process with the signal's default action.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hetperf::probes {

// Installs the SIGINT/SIGTERM handlers and ignores SIGPIPE (idempotent).
void install_cleanup_handlers();

// True once SIGINT or SIGTERM has arrived (probes check it between samples to stop early).
bool interrupted();
// Test hook: behave as if SIGINT had arrived (true) or clear the flag (false).
void set_interrupted(bool value);

// Thrown by probes that notice `interrupted()`; the suite catches it and writes a partial file.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted by a signal") {}
};

// Throws Interrupted when a signal has arrived.
void throw_if_interrupted();

// What an emergency clean-up does with a registered resource (in this order of kinds: children
// first, so that their memory and cgroup membership are gone before swapoff and rmdir).
enum class CleanupKind { kKillProcess, kKillProcessGroup, kSwapOff, kUnlinkFile, kRemoveDirectory };

// A registration in the signal-safe table; removed from the table by the destructor. Owners do
// their ordinary clean-up themselves and then let this go.
class CleanupRegistration {
 public:
  CleanupRegistration(CleanupKind kind, const std::filesystem::path& path, pid_t pid = 0);
  ~CleanupRegistration();
  CleanupRegistration(const CleanupRegistration&) = delete;
  CleanupRegistration& operator=(const CleanupRegistration&) = delete;

 private:
  int slot_;
};

// A file that exists only while this object lives; removed by the destructor or the signal handler.
// Created empty here (EnvironmentError if it exists or cannot be made) and locked (flock) while it
// lives, so that reclaim_stale_leftovers knows it for a live one.
class ScratchFile {
 public:
  explicit ScratchFile(std::filesystem::path path);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  CleanupRegistration registration_;
  int fd_ = -1;
};

// A forked child process that is killed (SIGKILL) and reaped when this object goes away. With
// `whole_group`, the child leads its own process group and the whole group is signalled (first
// SIGTERM, so that a launcher such as mpiexec can take its own children down, then SIGKILL).
class ChildProcess {
 public:
  explicit ChildProcess(pid_t pid, bool whole_group = false);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
  bool whole_group_;
  CleanupRegistration registration_;
};

// A forked copy of this process that reports through a pipe: the child runs `body` with the pipe's
// write end and exits (_exit(0) if `body` returns), and never outlives the probe (PR_SET_PDEATHSIG);
// the parent keeps the read end, which it closes. `who` names the probe in the EnvironmentError thrown
// when the pipe or the fork fails.
//     ReportingChild c = fork_reporting_child("kernel probe", [&](int fd) { write_result(fd); });
//     read(c.read_fd, ...); ::close(c.read_fd);   // c.process kills and reaps the child if still there
struct ReportingChild {
  std::unique_ptr<ChildProcess> process;
  int read_fd = -1;
};
ReportingChild fork_reporting_child(const std::string& who, const std::function<void(int write_fd)>& body);

// The names of what the probes make, each followed by the making hetperf's process id: the memory
// probe's swap file and cgroup, the disk probe's scratch file. reclaim_stale_leftovers knows a killed
// probe's things by them.
inline constexpr std::string_view kSwapFilePrefix = ".hetperf-swap.";
inline constexpr std::string_view kDiskScratchPrefix = ".hetperf-disk-probe.";
inline constexpr std::string_view kMemoryCgroupPrefix = "hetperf-memory-";

// An enabled swap area, from /proc/swaps: its path (the kernel writes a space in it as \040) and the
// MB of it in use.
struct SwapArea {
  std::string path;
  double used_mb = 0;
};
std::vector<SwapArea> swap_areas();

// What a probe killed outright (SIGKILL, the machine shut down) could not remove: its swap file
// (".hetperf-swap.<pid>", possibly still enabled), its disk scratch file (".hetperf-disk-probe.<pid>")
// and its memory cgroup ("hetperf-memory-<pid>"), named by the process id of the hetperf that made
// them. Removes those of processes that no longer exist and whose lock (ScratchFile's) nobody holds:
// swap files listed in /proc/swaps (swapoff, then unlink), the scratch and swap files in `directory`,
// and the memory cgroups (their remaining members, the killed probe's load processes, are killed
// first). A process id that is alive, even if reused by another program, keeps its things, and so
// does a held lock (a probe on another host that shares the directory). Returns one line per thing
// removed, or that could not be removed and why; nothing to do gives an empty list. Needs root for
// swapoff and the cgroups; as another user, what it may not touch is reported, not removed.
std::vector<std::string> reclaim_stale_leftovers(const std::filesystem::path& directory);

}  // namespace hetperf::probes
