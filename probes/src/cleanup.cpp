// Clean-up registry and signal handlers (see cleanup.hpp for the two-stage design).
#include "hetperf/probes/cleanup.hpp"

#include <signal.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "hetperf/model/error.hpp"

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
  for (CleanupKind kind : {CleanupKind::kKillProcessGroup, CleanupKind::kKillProcess, CleanupKind::kSwapOff, CleanupKind::kUnlinkFile,
                           CleanupKind::kRemoveDirectory}) {
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
    : path_(std::move(path)), registration_(CleanupKind::kUnlinkFile, path_) {}

ScratchFile::~ScratchFile() { ::unlink(path_.c_str()); }

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

}  // namespace hetperf::probes
