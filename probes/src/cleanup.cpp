// Scratch-file registry and signal handlers.
#include "hetperf/probes/cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "hetperf/model/error.hpp"

namespace hetperf::probes {
namespace {

constexpr int kSlots = 16;
constexpr std::size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<bool> g_used[kSlots];
std::atomic<bool> g_interrupted{false};
std::mutex g_mutex;

extern "C" void on_signal(int sig) {
  g_interrupted.store(true);
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) ::unlink(g_paths[i]);
  }
  // Restore the default action and re-raise, so the exit status says which signal ended us.
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
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
  });
}

bool interrupted() { return g_interrupted.load(); }

ScratchFile::ScratchFile(std::filesystem::path path) : path_(std::move(path)), slot_(-1) {
  std::string s = path_.string();
  HETPERF_CHECK(s.size() < kPathMax, "scratch path too long");
  std::lock_guard lock(g_mutex);
  for (int i = 0; i < kSlots; ++i) {
    if (!g_used[i].load()) {
      std::memcpy(g_paths[i], s.c_str(), s.size() + 1);
      g_used[i].store(true);
      slot_ = i;
      break;
    }
  }
  HETPERF_CHECK(slot_ >= 0, "too many scratch files at once");
  install_cleanup_handlers();
}

ScratchFile::~ScratchFile() {
  ::unlink(path_.c_str());
  std::lock_guard lock(g_mutex);
  g_used[slot_].store(false);
}

}  // namespace hetperf::probes
