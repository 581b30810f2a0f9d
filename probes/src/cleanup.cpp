// Clean-up registry and signal handlers (see cleanup.hpp for the two-stage design).
#include "hetperf/probes/cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cgroup.hpp"

namespace hetperf::probes {
namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> used{false};
  CleanupKind kind = CleanupKind::kUnlinkFile;
  pid_t pid = 0;
  char path[kPathMax] = {};
};

Slot g_slots[kSlots];
std::atomic<int> g_signals{0};
std::mutex g_mutex;

// Only async-signal-safe calls: kill, waitpid, swapoff, unlink, rmdir.
void emergency_cleanup() {
  for (CleanupKind kind : {CleanupKind::kKillProcessGroup, CleanupKind::kKillProcess, CleanupKind::kSwapOff,
                           CleanupKind::kUnlinkFile, CleanupKind::kRemoveDirectory}) {
    for (Slot& s : g_slots) {
      if (!s.used.load() || s.kind != kind) continue;
      switch (kind) {
        case CleanupKind::kKillProcessGroup:
          ::kill(-s.pid, SIGKILL);
          ::waitpid(s.pid, nullptr, 0);
          break;
        case CleanupKind::kKillProcess:
          ::kill(s.pid, SIGKILL);
          ::waitpid(s.pid, nullptr, 0);
          break;
        case CleanupKind::kSwapOff:
          ::swapoff(s.path);
          ::unlink(s.path);
          break;
        case CleanupKind::kUnlinkFile:
          ::unlink(s.path);
          break;
        case CleanupKind::kRemoveDirectory:
          ::rmdir(s.path);
          break;
      }
    }
  }
}

extern "C" void on_signal(int sig) {
  if (g_signals.fetch_add(1) == 0) return;  // first signal: the probes notice and unwind themselves
  emergency_cleanup();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking calls (accept, read, waitpid) return EINTR
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    // A write to a process or socket that has gone returns EPIPE, which the probes report, instead of
    // killing hetperf before it cleans up (SIGPIPE's default).
    ::signal(SIGPIPE, SIG_IGN);
  });
}

bool interrupted() { return g_signals.load() > 0; }

void set_interrupted(bool value) { g_signals.store(value ? 1 : 0); }

void throw_if_interrupted() {
  if (interrupted()) throw Interrupted();
}

CleanupRegistration::CleanupRegistration(CleanupKind kind, const std::filesystem::path& path, pid_t pid) : slot_(-1) {
  std::string s = path.string();
  HETPERF_CHECK(s.size() < kPathMax, "clean-up path too long");
  install_cleanup_handlers();
  std::lock_guard lock(g_mutex);
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.used.load()) continue;
    slot.kind = kind;
    slot.pid = pid;
    std::memcpy(slot.path, s.c_str(), s.size() + 1);
    slot.used.store(true);
    slot_ = i;
    break;
  }
  HETPERF_CHECK(slot_ >= 0, "too many registered clean-up actions at once");
}

CleanupRegistration::~CleanupRegistration() {
  std::lock_guard lock(g_mutex);
  g_slots[slot_].used.store(false);
}

ScratchFile::ScratchFile(std::filesystem::path path)
    : path_(std::move(path)), registration_(CleanupKind::kUnlinkFile, path_) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd_ < 0) throw EnvironmentError("cannot create " + path_.string() + ": " + std::strerror(errno));
  // Held while the file is ours: reclaim_stale_leftovers leaves a file whose lock is held, also one of
  // another host on a shared file system. A file system without locks leaves only the process id.
  ::flock(fd_, LOCK_EX | LOCK_NB);
}

ScratchFile::~ScratchFile() {
  ::unlink(path_.c_str());
  ::close(fd_);
}

ChildProcess::ChildProcess(pid_t pid, bool whole_group)
    : pid_(pid),
      whole_group_(whole_group),
      registration_(whole_group ? CleanupKind::kKillProcessGroup : CleanupKind::kKillProcess, {}, pid) {
  HETPERF_CHECK(pid > 0, "child process id must be positive");
}

ChildProcess::~ChildProcess() {
  if (whole_group_) {
    // Already reaped (waitpid by the owner)? Then only stragglers of the group can remain.
    ::kill(-pid_, SIGTERM);
    for (int i = 0; i < 50 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) ::usleep(20000);
    ::kill(-pid_, SIGKILL);
  } else {
    ::kill(pid_, SIGKILL);
  }
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

ReportingChild fork_reporting_child(const std::string& who, const std::function<void(int write_fd)>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw EnvironmentError(who + ": pipe: " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]), ::close(fds[1]);
    throw EnvironmentError(who + ": fork: " + std::strerror(e));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the probe
    ::close(fds[0]);
    body(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  ReportingChild child;
  child.read_fd = fds[0];
  child.process = std::make_unique<ChildProcess>(pid);
  return child;
}

namespace {

// The process id at the end of `name` after `prefix` (digits only), or nullopt.
std::optional<pid_t> pid_after(const std::string& name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  long long v = 0;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || end != last || v <= 0 || v > 0x3fffffff) return std::nullopt;
  return static_cast<pid_t>(v);
}

// Whether a process with this id exists (EPERM: it does, owned by someone else).
bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

std::string error_text() { return std::strerror(errno); }

// Whether some process holds the lock of the file at `path` (ScratchFile's): a live probe's file.
bool lock_held(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

// A file named after process `pid` is stale when that process is gone (or is this one, which has not
// made it) and nobody holds its lock.
bool stale_file(pid_t pid, const std::string& path) {
  return (pid == ::getpid() || !process_exists(pid)) && !lock_held(path);
}

bool is_swap_area(const std::vector<SwapArea>& areas, const std::string& path) {
  return std::any_of(areas.begin(), areas.end(), [&](const SwapArea& a) { return a.path == path; });
}

}  // namespace

std::vector<SwapArea> swap_areas() {
  std::ifstream in("/proc/swaps");
  std::string line;
  std::vector<SwapArea> areas;
  std::getline(in, line);  // header: Filename Type Size Used Priority (KiB)
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string name, type;
    double size_kib = 0, used_kib = 0;
    if (ss >> name >> type >> size_kib >> used_kib) areas.push_back({name, used_kib / 1024.0});
  }
  return areas;
}

std::vector<std::string> reclaim_stale_leftovers(const std::filesystem::path& directory) {
  std::vector<std::string> done;
  const auto whose = [](pid_t pid) {
    return " (left by hetperf process " + std::to_string(pid) + ", which no longer runs)";
  };
  // Swap files first, wherever they are: an enabled one holds its disk space and may hold pages.
  for (const SwapArea& area : swap_areas()) {
    const std::string& name = area.path;
    const auto pid = pid_after(std::filesystem::path(name).filename().string(), kSwapFilePrefix);
    if (!pid || !stale_file(*pid, name)) continue;
    if (::swapoff(name.c_str()) != 0) {
      done.push_back("could not disable the swap file " + name + whose(*pid) + ": " + error_text());
      continue;
    }
    if (::unlink(name.c_str()) != 0 && errno != ENOENT) {
      done.push_back("disabled the swap file " + name + whose(*pid) + " but could not remove it: " + error_text());
    } else {
      done.push_back("disabled and removed the swap file " + name + whose(*pid));
    }
  }
  const std::vector<SwapArea> still_on = swap_areas();  // those swapoff refused, reported above
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    auto pid = pid_after(name, kSwapFilePrefix);
    if (!pid) pid = pid_after(name, kDiskScratchPrefix);
    if (!pid || !entry.is_regular_file(ec)) continue;
    const std::string path = std::filesystem::weakly_canonical(entry.path(), ec).string();
    if (!stale_file(*pid, path) || is_swap_area(still_on, path)) continue;
    if (::unlink(path.c_str()) != 0) {
      done.push_back("could not remove " + path + whose(*pid) + ": " + error_text());
    } else {
      done.push_back("removed " + path + whose(*pid));
    }
  }
  if (auto root = find_cgroup_root("memory", nullptr)) {
    for (const auto& entry : std::filesystem::directory_iterator(root->path, ec)) {
      const auto pid = pid_after(entry.path().filename().string(), kMemoryCgroupPrefix);
      if (!pid || *pid == ::getpid() || process_exists(*pid) || !entry.is_directory(ec)) continue;
      // Its members can only be the killed probe's own processes; they go first, or rmdir is refused.
      // A member outside this PID namespace reads as 0: then the cgroup is another container's probe's.
      std::vector<pid_t> members;
      std::ifstream procs(entry.path() / "cgroup.procs");
      for (pid_t member = 0; procs >> member;) members.push_back(member);
      if (std::find(members.begin(), members.end(), 0) != members.end()) continue;
      for (pid_t member : members) ::kill(member, SIGKILL);
      const bool removed = remove_cgroup_directory(entry.path());
      done.push_back(removed ? "removed the memory cgroup " + entry.path().string() + whose(*pid)
                             : "could not remove the memory cgroup " + entry.path().string() + whose(*pid) + ": " +
                                   error_text());
    }
  }
  return done;
}

}  // namespace hetperf::probes
