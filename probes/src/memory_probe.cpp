// Memory probe: slowdown of a reference task under rising memory occupation, confined to a cgroup.
#include "hetperf/probes/memory_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "hetperf/model/error.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/cleanup.hpp"

extern char** environ;

namespace hetperf::probes {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr std::size_t kPage = 4096;

double meminfo_mb(std::string_view key) { return static_cast<double>(meminfo_bytes(key).value_or(0)) / kMiB; }

// A pipe whose ends close with the object.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw EnvironmentError(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

// The curve cannot go on (out of memory, a process lost); the points measured before are kept.
class CurveStops : public std::runtime_error {
 public:
  CurveStops(const std::string& why, bool out_of_memory = false)
      : std::runtime_error(why), out_of_memory_(out_of_memory) {}
  bool out_of_memory() const { return out_of_memory_; }

 private:
  bool out_of_memory_;
};

// Reads exactly n bytes, waiting at most timeout_s and throwing Interrupted on SIGINT; `watch` runs
// at least every 100 ms while waiting (it may throw). False on EOF or timeout.
bool read_exact(int fd, void* buf, std::size_t n, double timeout_s, const std::function<void()>& watch = {}) {
  char* p = static_cast<char*>(buf);
  const double deadline = monotonic_seconds() + timeout_s;
  while (n > 0) {
    throw_if_interrupted();
    if (watch) watch();
    if (monotonic_seconds() > deadline) return false;
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, 100);
    if (r < 0 && errno != EINTR) return false;
    if (r <= 0) continue;
    ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

double child_clock() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Nanoseconds a task has waited runnable for a CPU (second field of its schedstat file: /proc/self/
// or /proc/thread-self/schedstat), or -1 when the kernel does not provide it. Parsed by hand: the
// child sticks to async-signal-safe calls.
long long run_queue_wait_ns(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char b[128] = {};
  ssize_t n = ::read(fd, b, sizeof b - 1);
  ::close(fd);
  if (n <= 0) return -1;
  const char* p = b;
  while (*p && *p != ' ') ++p;  // skip the CPU time
  if (*p != ' ') return -1;
  ++p;
  long long v = 0;
  for (; *p >= '0' && *p <= '9'; ++p) v = v * 10 + (*p - '0');
  return v;
}

// Child side, async-signal-safe calls only (the parent may have other threads): die with the parent,
// wait until the parent has moved us into the cgroup, map and touch `bytes`, `pace_ns` per MiB.
char* child_start(pid_t parent, int go_fd, std::size_t bytes, long pace_ns) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  char c = 0;
  if (::read(go_fd, &c, 1) != 1) ::_exit(1);
  void* mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) ::_exit(1);
  // Small pages throughout: khugepaged collapsing the reference's pages into huge pages part-way would
  // speed it up by itself, and the swap path splits huge pages anyway.
  ::madvise(mem, bytes, MADV_NOHUGEPAGE);
  char* p = static_cast<char*>(mem);
  // First touch paced: near the limit every fault must reclaim, and a burst of faults can exhaust the
  // cgroup's reclaim retries before swap writeback completes (premature OOM).
  const timespec pace{pace_ns / 1'000'000'000, pace_ns % 1'000'000'000};
  for (std::size_t i = 0; i < bytes; i += kPage) {
    p[i] = static_cast<char>(i);
    if (i % (1u << 20) == 0) ::nanosleep(&pace, nullptr);
  }
  return p;
}

// A child process in the experiment: forked, moved into the cgroup (when confined), then released.
struct Worker {
  std::unique_ptr<ChildProcess> process;
  Pipe to_child, from_child;
};

// What a peer reports after each burst of touches.
struct BurstReply {
  double seconds = 0;       // time of the burst (minus run-queue waits when asked)
  double major_faults = 0;  // its major faults during the burst (swap-ins: the memory is anonymous)
};

// `touches` pages drawn uniformly at random from `pages` pages at `p` (xorshift64 state `x`), each
// written once per cache line: a page's worth of work, so that a resident touch is not lost in the
// clock's noise. Async-signal-safe.
void touch_random_pages(char* p, std::size_t pages, std::size_t touches, std::uint64_t& x) {
  for (std::size_t t = 0; t < touches; ++t) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    char* page = p + (x % pages) * kPage;
    for (std::size_t i = 0; i < kPage; i += 64) page[i] = static_cast<char>(page[i] + 1);
  }
}

// Seconds that `touches` random page touches take (touch_random_pages), less the time spent waiting
// runnable for a CPU when `schedstat` names this task's schedstat file (nullptr: wall time): on a
// shared host other people's processes would otherwise dominate the figure, while stalls on memory
// (page faults, swap I/O, reclaim) stay in it. The clock is read outside the schedstat reads: a wait
// between them and the clock can only add to the time, so it never undercounts the task's own.
// Async-signal-safe.
double timed_touches(char* p, std::size_t pages, std::size_t touches, std::uint64_t& x, const char* schedstat) {
  const double t0 = child_clock();
  const long long w0 = schedstat ? run_queue_wait_ns(schedstat) : -1;
  touch_random_pages(p, pages, touches, x);
  const long long w1 = w0 >= 0 ? run_queue_wait_ns(schedstat) : -1;
  double dt = child_clock() - t0;
  if (w1 >= w0 && w0 >= 0) dt -= 1e-9 * static_cast<double>(w1 - w0);
  return dt;
}

long major_faults_now() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_majflt;
}

// A peer of the experiment (the reference task or a load process): holds `bytes`; on each command
// byte touches `touches` pages drawn uniformly at random (xorshift64, seeded), each with a write per
// cache line (a page's worth of work, so that a resident touch is not lost in the clock's noise), and
// replies with a BurstReply. With `exclude_waiting` the time spent runnable but waiting for a CPU is
// subtracted: on a shared host other people's processes would otherwise dominate the figure, while
// stalls on memory (page faults, swap I/O, reclaim) stay in it.
[[noreturn]] void occupant_main(pid_t parent, int go_fd, int ready_fd, std::size_t bytes, std::size_t touches,
                                std::uint64_t seed, bool exclude_waiting, long pace_ns, int cpu) {
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ::sched_setaffinity(0, sizeof one, &one);
  }
  char* p = child_start(parent, go_fd, bytes, pace_ns);
  char k = 'k';
  if (::write(ready_fd, &k, 1) != 1) ::_exit(1);
  const std::size_t pages = bytes / kPage;
  std::uint64_t x = seed | 1;
  for (;;) {
    char c = 0;
    if (::read(go_fd, &c, 1) != 1) ::_exit(0);
    const long f0 = major_faults_now();
    BurstReply r;
    r.seconds = timed_touches(p, pages, touches, x, exclude_waiting ? "/proc/self/schedstat" : nullptr);
    r.major_faults = static_cast<double>(major_faults_now() - f0);
    if (::write(ready_fd, &r, sizeof r) != sizeof r) ::_exit(1);
  }
}

// Forks a worker running `body(go_fd, ready_fd)`, puts it into `cgroup` (if any), and lets it start.
template <typename Body>
std::unique_ptr<Worker> spawn(const Cgroup* cgroup, Body body) {
  auto w = std::make_unique<Worker>();
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The probe ends its processes itself, on a signal too; a Ctrl-C reaches the whole process group,
    // and a child that ended on it would leave hetperf writing to a closed pipe.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
    body(parent, w->to_child.fd[0], w->from_child.fd[1]);
    ::_exit(1);
  }
  w->process = std::make_unique<ChildProcess>(pid);
  w->to_child.close_end(0);
  w->from_child.close_end(1);
  if (cgroup) cgroup->add_process(pid);
  char go = 'g';
  if (::write(w->to_child.fd[1], &go, 1) != 1) throw EnvironmentError("cannot start a memory probe process");
  return w;
}

// Without reaping it (WNOWAIT): the pid stays ours until ChildProcess kills and reaps it.
bool alive(const Worker& w) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(w.process->pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == 0;
}

// Nanoseconds to pause per MiB for a first-touch rate of `mb_per_s`.
long pace_ns_per_mib(double mb_per_s) { return static_cast<long>(1e9 / mb_per_s); }

// Used slots of the swap file at `path` (/proc/swaps), MB; 0 when it is not listed.
double swap_file_used_mb(const std::string& path) {
  for (const SwapArea& area : swap_areas()) {
    if (area.path == path) return area.used_mb;
  }
  return 0;
}

// Watches the experiment's cgroup for memory pressure; without a cgroup it sees nothing.
class PressureWatch {
 public:
  PressureWatch(const Cgroup* cgroup, std::string swap_file, double grace_s)
      : cgroup_(cgroup), swap_file_(std::move(swap_file)), grace_s_(grace_s) {
    start_ = read();
  }
  const CgroupMemoryState& start() const { return start_; }

  CgroupMemoryState read() const {
    CgroupMemoryState s;
    if (!cgroup_) return s;
    auto number = [&](const std::string& file) {
      std::string text = cgroup_->read(file);
      return text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) ? 0.0 : std::stod(text);
    };
    if (cgroup_->version() == 1) {
      s.usage_mb = number("memory.usage_in_bytes") / kMiB;
      double memsw_mb = number("memory.memsw.usage_in_bytes") / kMiB;
      s.swap_mb = std::max(0.0, memsw_mb - s.usage_mb);
      s.charged_mb = std::max(memsw_mb, s.usage_mb);
      std::string oom = cgroup_->read("memory.oom_control");
      s.under_oom = control_file_value(oom, "under_oom") != 0;
      s.oom_kills = control_file_value(oom, "oom_kill");
      s.swap_limit_hits = static_cast<std::uint64_t>(number("memory.memsw.failcnt"));
    } else {
      s.usage_mb = number("memory.current") / kMiB;
      s.swap_mb = number("memory.swap.current") / kMiB;
      s.charged_mb = s.usage_mb + s.swap_mb;
      std::string events = cgroup_->read("memory.events");
      s.oom_events = control_file_value(events, "oom");
      s.oom_kills = control_file_value(events, "oom_kill");
      s.swap_limit_hits = control_file_value(cgroup_->read("memory.swap.events"), "max");
    }
    const std::string stat = cgroup_->read("memory.stat");
    s.writeback_mb = static_cast<double>(control_file_value(stat, "writeback")) / kMiB;
    s.major_faults = control_file_value(stat, "pgmajfault");
    if (!swap_file_.empty()) s.swap_mb = std::max(s.swap_mb, swap_file_used_mb(swap_file_));
    return s;
  }

  // Throws CurveStops when a load process was OOM-killed (v2, or v1 if disabling was refused), or the
  // cgroup has been out of memory for longer than the grace period. Reads the cgroup at most every 50 ms.
  void check() {
    if (!cgroup_) return;
    const double now = monotonic_seconds();
    if (now - last_check_ < 0.05) return;
    last_check_ = now;
    CgroupMemoryState s = read();
    if (s.oom_kills > start_.oom_kills || s.oom_events > start_.oom_events) {
      throw CurveStops("the cgroup ran out of memory+swap and its OOM killer ran", true);
    }
    if (s.under_oom) {
      if (oom_since_ < 0) oom_since_ = now;
      if (now - oom_since_ >= grace_s_) {
        throw CurveStops("the cgroup stayed out of memory+swap for " + std::to_string(grace_s_) + " s", true);
      }
    } else {
      oom_since_ = -1;
    }
  }

  // Waits (at most `max_s`) until the cgroup has written out its pending pages, so that the next
  // step does not start on top of a swap-out burst.
  void settle(double max_s) {
    const double until = monotonic_seconds() + max_s;
    while (cgroup_ && read().writeback_mb > 1 && monotonic_seconds() < until) {
      throw_if_interrupted();
      check();
      ::usleep(20000);
    }
  }

 private:
  const Cgroup* cgroup_;
  std::string swap_file_;
  double grace_s_;
  CgroupMemoryState start_;
  double last_check_ = -1;
  double oom_since_ = -1;
};

// A swap file that exists and is enabled only while this object lives.
class SwapFile {
 public:
  SwapFile(const std::filesystem::path& path, double size_mb) : file_(path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);  // made (and locked) by file_
    if (fd < 0) throw EnvironmentError("cannot create swap file " + path.string() + ": " + std::strerror(errno));
    std::vector<char> zeros(1 << 20, 0);
    bool ok = true;
    for (double done = 0; ok && done < size_mb; done += 1) {
      throw_if_interrupted();
      ok = ::write(fd, zeros.data(), zeros.size()) == static_cast<ssize_t>(zeros.size());
    }
    ok = ok && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) throw EnvironmentError("cannot write swap file " + path.string() + ": " + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    std::string p = path.string();
    char arg0[] = "mkswap", arg1[] = "-q";
    char* argv[] = {arg0, arg1, p.data(), nullptr};
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, "mkswap", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw EnvironmentError(std::string("cannot run mkswap: ") + std::strerror(rc));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw EnvironmentError("mkswap " + p + " failed");
    registration_.emplace(CleanupKind::kSwapOff, path);
    if (::swapon(p.c_str(), 0) != 0) {
      registration_.reset();
      throw EnvironmentError("swapon " + p + " refused: " + std::strerror(errno));
    }
    on_ = true;
  }
  ~SwapFile() {
    if (on_) ::swapoff(file_.path().c_str());
  }
  SwapFile(const SwapFile&) = delete;
  SwapFile& operator=(const SwapFile&) = delete;

 private:
  ScratchFile file_;
  std::optional<CleanupRegistration> registration_;
  bool on_ = false;
};

// Occupations to visit, from `start_mb` (the reference task alone): coarse steps through main memory,
// finer near its end, coarser in swap. The fine steps fall half a step either side of main memory,
// never on it: the processes' own memory (page tables, stacks: 0.25-0.7 MB beyond their buffers, by
// the cgroup's charge) puts a point at the limit that far into swap, and α there is proportional to it
// (about 1.3 per MB on the VM of results/memory), so such a point read 0.40-0.79 from run to run with
// the apparatus's overhead, not with the occupation.
std::vector<double> occupation_grid(double start_mb, double main_mb, double max_mb, double step, bool beyond_main) {
  std::vector<double> grid = {start_mb};
  const double coarse = step * main_mb;
  const double fine = coarse / 4;
  auto add = [&](double x) {
    if (x > grid.back() + coarse / 8 && x <= max_mb + 1e-9) grid.push_back(x);
  };
  double x = coarse;
  for (; x < 0.9 * main_mb - 1e-9; x += coarse) add(x);
  if (!beyond_main) return grid;
  for (x = main_mb - 3.5 * fine; x < main_mb + 4 * fine; x += fine) add(x);
  for (x = 1.1 * main_mb + 1.5 * coarse; x <= max_mb + 1e-9; x += 1.5 * coarse) add(x);
  return grid;
}

// Size of the largest CPU cache (sysfs cpu0 cache indexes), MB; 0 when unknown.
double largest_cache_mb() {
  double best = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    double v = 0;
    if (!(in >> v)) continue;
    if (in.peek() == 'K')
      v /= 1024;
    else if (in.peek() == 'M')
      v *= 1;
    else if (in.peek() == 'G')
      v *= 1024;
    else
      v /= kMiB;
    best = std::max(best, v);
  }
  return best;
}

// The probe's own buffer written once per reference burst to evict the reference's lines and TLB
// entries (small pages, so it covers as many TLB entries as bytes allow).
class CacheSweep {
 public:
  explicit CacheSweep(double mb) : bytes_(static_cast<std::size_t>(mb * kMiB) / kPage * kPage) {
    if (bytes_ == 0) return;
    void* m = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      throw EnvironmentError(std::string("memory probe: cache sweep buffer: ") + std::strerror(errno));
    ::madvise(m, bytes_, MADV_NOHUGEPAGE);
    ::madvise(m, bytes_, MADV_DONTFORK);  // not copied into the load processes (ControlTask says why)
    p_ = static_cast<char*>(m);
  }
  ~CacheSweep() {
    if (p_) ::munmap(p_, bytes_);
  }
  CacheSweep(const CacheSweep&) = delete;
  CacheSweep& operator=(const CacheSweep&) = delete;
  void run() {
    for (std::size_t i = 0; i < bytes_; i += 64) p_[i] = static_cast<char>(p_[i] + 1);
  }

 private:
  std::size_t bytes_;
  char* p_ = nullptr;
};

// The same-round control: the probe's own resident copy of the reference task's work (as many
// random page touches over as many pages, each written once per cache line), timed right after the
// reference's burst on the same CPU, cache-cold like it (the sweep and the load processes' bursts came
// between its rounds). It is outside the cgroup and never swaps, so its time is the reference's time
// without memory pressure at that moment: the machine's speed in that round, whatever other tenants
// do to the memory system or the processor.
class ControlTask {
 public:
  ControlTask(std::size_t bytes, std::size_t touches, std::uint64_t seed, bool exclude_waiting)
      : bytes_(bytes), touches_(touches), x_(seed | 1), exclude_waiting_(exclude_waiting) {
    void* m = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw EnvironmentError(std::string("memory probe: control buffer: ") + std::strerror(errno));
    ::madvise(m, bytes_, MADV_NOHUGEPAGE);  // small pages, as the reference task's
    // Not inherited by the processes the probe forks later: shared copy-on-write with them, every
    // write after a fork would copy the page, and the control would time page copies (measured:
    // 0.5-12 ms a round instead of 0.5, rising with the number of load processes).
    ::madvise(m, bytes_, MADV_DONTFORK);
    p_ = static_cast<char*>(m);
    for (std::size_t i = 0; i < bytes_; i += kPage) p_[i] = 1;
  }
  ~ControlTask() { ::munmap(p_, bytes_); }
  ControlTask(const ControlTask&) = delete;
  ControlTask& operator=(const ControlTask&) = delete;
  // Seconds of one burst, less run-queue waits as the reference's (occupant_main); this thread's own
  // waits, since the probe may have other threads.
  double burst() {
    return timed_touches(p_, bytes_ / kPage, touches_, x_, exclude_waiting_ ? "/proc/thread-self/schedstat" : nullptr);
  }

 private:
  std::size_t bytes_, touches_;
  std::uint64_t x_;
  bool exclude_waiting_;
  char* p_ = nullptr;
};

// The same-round device control: after each round, `reads` reads of one page each at random places
// in the swap file, past the page cache (O_DIRECT), timed; the round's figure is their median. A
// swap-in waits for such a read, so whatever slows the swap device (a shared host's disk) lengthens
// these reads and the reference's swap-ins alike: on the KVM VM of results/memory, runs had spells
// of 2-30 s in which these reads took 80-100 µs instead of 55-72, and the reference's time per
// swap-in followed them, while its swap-ins per round stayed within 1-6% across runs.
class DeviceControl {
 public:
  DeviceControl(const std::string& swap_file, double swap_mb, std::size_t reads, std::uint64_t seed)
      : pages_(static_cast<std::uint64_t>(swap_mb * kMiB) / kPage), reads_(reads), rng_(seed) {
    if (reads_ == 0) why_not_ = "device_reads_per_round is 0";
    if (reads_ == 0 || swap_file.empty() || pages_ < 2) return;
    fd_ = ::open(swap_file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd_ < 0) {
      why_not_ = "cannot read the swap file past the page cache (O_DIRECT): " + std::string(std::strerror(errno));
      return;
    }
    buffer_ = ::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffer_ == MAP_FAILED) {
      buffer_ = nullptr;
      ::close(fd_);
      fd_ = -1;
      why_not_ = std::string("no buffer for the device control: ") + std::strerror(errno);
      return;
    }
    ::madvise(buffer_, kPage, MADV_DONTFORK);
  }
  ~DeviceControl() {
    if (fd_ >= 0) ::close(fd_);
    if (buffer_) ::munmap(buffer_, kPage);
  }
  DeviceControl(const DeviceControl&) = delete;
  DeviceControl& operator=(const DeviceControl&) = delete;
  const std::string& why_not() const { return why_not_; }
  // Median seconds of one read (page 0, the swap header, is never read); -1 when inactive. A failed
  // read ends the control for the rest of the run (why_not says so).
  double round() {
    if (fd_ < 0) return -1;
    std::vector<double> seconds;
    for (std::size_t i = 0; i < reads_; ++i) {
      const auto page = static_cast<off_t>(1 + rng_() % (pages_ - 1));
      const double start = monotonic_seconds();
      if (::pread(fd_, buffer_, kPage, page * static_cast<off_t>(kPage)) != static_cast<ssize_t>(kPage)) {
        why_not_ =
            "a read of the swap file failed (" + std::string(std::strerror(errno)) + "): no device control after it";
        ::close(fd_);
        fd_ = -1;
        return -1;
      }
      seconds.push_back(monotonic_seconds() - start);
    }
    return median(seconds);
  }

 private:
  std::uint64_t pages_;
  std::size_t reads_;
  std::mt19937_64 rng_;
  int fd_ = -1;
  void* buffer_ = nullptr;
  std::string why_not_ = "no swap file";
};

// Pins the calling thread to one CPU while it lives (the previous mask is restored): the cache sweep
// must run on the reference task's CPU to evict that core's private caches and TLB as well.
class PinnedThread {
 public:
  explicit PinnedThread(int cpu) {
    if (cpu < 0 || ::sched_getaffinity(0, sizeof before_, &before_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = ::sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~PinnedThread() {
    if (pinned_) ::sched_setaffinity(0, sizeof before_, &before_);
  }
  PinnedThread(const PinnedThread&) = delete;
  PinnedThread& operator=(const PinnedThread&) = delete;
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t before_{};
  bool pinned_ = false;
};

// The last CPU this thread may run on; -1 when unknown.
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
    if (CPU_ISSET(c, &set)) return c;
  }
  return -1;
}

std::string mb_text(double mb) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", mb);
  return b;
}

}  // namespace

std::string MemoryProbeOptions::validate() const {
  if (!(limit_mb >= 16)) return "memory limit " + mb_text(limit_mb) + " MB: must be at least 16 MB";
  if (!(swap_mb >= 0)) return "swap size must be non-negative";
  if (!(step_fraction > 0 && step_fraction <= 0.5)) return "occupation step must be in (0, 0.5] of main memory";
  if (!(max_swap_fraction >= 0 && max_swap_fraction <= 0.9)) return "max swap fraction must be in [0, 0.9]";
  if (!(reference_mb >= 1)) return "reference task memory must be at least 1 MB";
  if (confine && !(reference_mb <= 0.5 * limit_mb))
    return "reference task memory must be at most half the memory limit";
  if (!(holder_mb >= 1)) return "load process size must be at least 1 MB";
  if (!(cache_sweep_mb == -1 || (cache_sweep_mb >= 0 && cache_sweep_mb <= 1024))) {
    return "cache sweep must be -1 (automatic) or in [0, 1024] MB";
  }
  if (!(touches_per_page > 0 && touches_per_page <= 4)) return "touches per page must be in (0, 4]";
  if (!(warmup_touches_per_page >= 0 && warmup_touches_per_page <= 16))
    return "warm-up touches per page must be in [0, 16]";
  if (device_reads_per_round > 64) return "device reads per round must be in [0, 64]";
  if (!(device_reference_quantile == -1 || (device_reference_quantile >= 0 && device_reference_quantile <= 1))) {
    return "device reference quantile must be -1 (no scaling) or in [0, 1]";
  }
  if (!(passes >= 1 && passes <= 10)) return "passes must be from 1 to 10";
  if (!(knee_slowdown > 0)) return "knee slowdown must be positive";
  if (!(max_slowdown > knee_slowdown)) return "max slowdown must exceed the knee slowdown";
  if (!(unconfined_fraction_of_available > 0 && unconfined_fraction_of_available <= 0.8)) {
    return "unconfined fraction of MemAvailable must be in (0, 0.8]";
  }
  return repeat.validate();
}

std::uint64_t control_file_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string k;
    std::uint64_t v = 0;
    if (ss >> k && k == key && ss >> v) return v;
  }
  return 0;
}

std::string occupation_stop_reason(const CgroupMemoryState& start, const CgroupMemoryState& now, double next_mb,
                                   double limit_mb, double swap_file_mb, double swap_safety_fraction) {
  if (now.oom_kills > start.oom_kills || now.oom_events > start.oom_events) {
    return "the cgroup ran out of memory+swap and its OOM killer ran";
  }
  if (now.under_oom) return "the cgroup is out of memory+swap (tasks wait for memory)";
  if (now.swap_limit_hits > start.swap_limit_hits) return "the cgroup reached its memory+swap limit";
  // Beyond main memory, every MB the step adds pushes about one MB out to swap.
  const double pushed_mb = std::max(0.0, now.usage_mb + next_mb - limit_mb);
  if (swap_file_mb > 0 && now.swap_mb + pushed_mb > swap_safety_fraction * swap_file_mb) {
    return "swap nearly full: " + mb_text(now.swap_mb) + " MB of the " + mb_text(swap_file_mb) +
           " MB swap file in use, and the next step adds " + mb_text(pushed_mb) + " MB";
  }
  return {};
}

double memory_round_alpha(double t, double c, double k, double t0, double device_scale) {
  return (t - k * c) * device_scale / t0;
}

double memory_device_scale(double point_read_s, double reference_read_s) {
  return point_read_s > 0 && reference_read_s > 0 ? reference_read_s / point_read_s : 1;
}

std::optional<double> memory_knee_mb(const std::vector<MemoryPoint>& points, double threshold) {
  auto above = [&](std::size_t i) {
    const auto& p = points[i];
    // A point without swap-ins of the reference is slowed by something else (CPU, caches): not a knee.
    if (p.reference_major_faults && *p.reference_major_faults <= 0) return false;
    return (p.slowdown.samples.empty() ? p.slowdown.ci95_low : median_ci95(p.slowdown.samples).first) > threshold;
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!above(i) || (i + 1 < points.size() && !above(i + 1))) continue;
    std::size_t j = i;  // the medians cross the threshold between j - 1 and j
    while (j > 0 && points[j - 1].slowdown.median >= threshold &&
           !(points[j - 1].reference_major_faults && *points[j - 1].reference_major_faults <= 0)) {
      --j;
    }
    if (j == 0) return points[0].occupied_mb;
    const auto& a = points[j - 1];
    const auto& b = points[j];
    const double f = std::clamp((threshold - a.slowdown.median) / (b.slowdown.median - a.slowdown.median), 0.0, 1.0);
    return a.occupied_mb + f * (b.occupied_mb - a.occupied_mb);
  }
  return std::nullopt;
}

MemoryMeasurement probe_memory(const MemoryProbeOptions& o) {
  if (auto e = o.validate(); !e.empty()) throw InputError("memory probe: " + e);
  MemoryMeasurement m;
  // A probe killed outright earlier (SIGKILL, a shutdown) may have left its swap file enabled and its
  // cgroup: they go first, and before MemAvailable and the free space are read.
  m.notes = reclaim_stale_leftovers(o.swap_directory);
  const double available_mb = meminfo_mb("MemAvailable");

  // Declaration order is clean-up order in reverse: load processes, reference task, swap, cgroup.
  std::unique_ptr<Cgroup> cgroup;
  std::optional<SwapFile> swap;
  std::string swap_path;
  std::string why_unconfined;
  if (!o.confine) {
    why_unconfined = "confinement disabled by option";
  } else if (::geteuid() != 0) {
    why_unconfined = "not running as root (a memory cgroup and a swap file need root)";
  } else {
    try {
      cgroup = Cgroup::create("memory", std::string(kMemoryCgroupPrefix) + std::to_string(::getpid()));
    } catch (const EnvironmentError& e) {
      why_unconfined = e.what();
    }
  }

  double main_mb = 0, max_mb = 0, swap_mb = 0;
  if (cgroup) {
    if (o.limit_mb + o.swap_mb > o.unconfined_fraction_of_available * available_mb) {
      throw InputError("memory probe: limit " + mb_text(o.limit_mb) + " MB + swap " + mb_text(o.swap_mb) +
                       " MB exceeds " + mb_text(o.unconfined_fraction_of_available * available_mb) +
                       " MB (a safe share of MemAvailable)");
    }
    main_mb = o.limit_mb;
    if (o.swap_mb > 0) {
      struct statvfs fs {};
      double free_mb = ::statvfs(o.swap_directory.c_str(), &fs) == 0
                           ? static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize) / kMiB
                           : 0;
      if (o.swap_mb > 0.25 * free_mb) {
        m.notes.push_back("no swap file: " + mb_text(o.swap_mb) + " MB would exceed a quarter of the " +
                          mb_text(free_mb) + " MB free in " + o.swap_directory.string());
      } else {
        try {
          auto path = std::filesystem::weakly_canonical(std::filesystem::absolute(o.swap_directory)) /
                      (std::string(kSwapFilePrefix) + std::to_string(::getpid()));
          swap.emplace(path, o.swap_mb);
          swap_mb = o.swap_mb;
          swap_path = path.string();
        } catch (const EnvironmentError& e) {
          m.notes.push_back(std::string("no swap region: ") + e.what());
        }
      }
    }
    const auto limit = std::to_string(static_cast<std::uint64_t>(o.limit_mb * kMiB));
    const auto with_swap = std::to_string(static_cast<std::uint64_t>((o.limit_mb + swap_mb) * kMiB));
    if (cgroup->version() == 1) {
      cgroup->write("memory.limit_in_bytes", limit);
      cgroup->write("memory.swappiness", "100");  // anonymous memory only: let reclaim swap freely
      try {
        cgroup->write("memory.memsw.limit_in_bytes", with_swap);
      } catch (const EnvironmentError&) {
        m.notes.push_back(
            "swap accounting is off (no memory.memsw.limit_in_bytes): swap use is bounded by the "
            "occupation steps only");
      }
      // A task that finds no memory waits (under_oom) instead of being killed; PressureWatch decides.
      try {
        cgroup->write("memory.oom_control", "1");
      } catch (const EnvironmentError&) {
        m.notes.push_back(
            "the cgroup's OOM killer could not be disabled (memory.oom_control): a load process may "
            "be killed near the limit; the curve then stops there");
      }
      m.confinement = "cgroup v1 " + cgroup->path().string() + " memory.limit_in_bytes=" + limit;
    } else {
      cgroup->write("memory.max", limit);
      cgroup->write("memory.swap.max", std::to_string(static_cast<std::uint64_t>(swap_mb * kMiB)));
      m.confinement = "cgroup v2 " + cgroup->path().string() + " memory.max=" + limit;
    }
    // Without swap, crossing the limit would call the cgroup's OOM killer: stay below it.
    max_mb = swap_mb > 0 ? o.limit_mb + o.max_swap_fraction * swap_mb : 0.9 * o.limit_mb;
    m.main_memory_mb = main_mb;
  } else {
    main_mb = meminfo_mb("MemTotal");
    max_mb = std::min(o.unconfined_max_mb, o.unconfined_fraction_of_available * available_mb);
    m.main_memory_mb = main_mb;
    m.confinement = "none";
    m.notes.push_back("unconfined (" + why_unconfined + "): occupation kept below " + mb_text(max_mb) +
                      " MB; swap region not measured");
  }
  m.swap_mb = swap_mb;
  m.settings = {{"method", "peers touching random pages, random order per round, ascents pooled (memory_probe.hpp)"},
                {"limit_mb", o.limit_mb},
                {"swap_file_mb", o.swap_mb},
                {"step_fraction", o.step_fraction},
                {"max_swap_fraction", o.max_swap_fraction},
                {"reference_mb", o.reference_mb},
                {"holder_mb", o.holder_mb},
                {"touches_per_page", o.touches_per_page},
                {"warmup_touches_per_page", o.warmup_touches_per_page},
                {"seed", o.seed},
                {"passes", o.passes},
                {"fill_mb_per_s", o.fill_mb_per_s},
                {"swap_fill_mb_per_s", o.swap_fill_mb_per_s},
                {"swap_safety_fraction", o.swap_safety_fraction},
                {"knee_slowdown", o.knee_slowdown},
                {"max_slowdown", o.max_slowdown},
                {"max_occupation_mb", max_mb},
                {"min_samples", o.repeat.min_samples},
                {"max_samples", o.repeat.max_samples},
                {"target_relative_half_width", o.repeat.target_relative_half_width},
                {"precision_statistic", o.repeat.statistic == RepeatStatistic::kMedian ? "median" : "mean"},
                {"time_cap_s", o.repeat.time_cap_s}};

  const bool beyond_main = cgroup && swap_mb > 0;
  const double grid_main = cgroup ? main_mb : max_mb;
  std::vector<double> grid = occupation_grid(o.reference_mb, grid_main, max_mb, o.step_fraction, beyond_main);
  PressureWatch watch(cgroup.get(), swap_path, o.out_of_memory_grace_s);
  auto check = [&watch] { watch.check(); };

  const bool exclude_waiting = o.exclude_run_queue_wait && run_queue_wait_ns("/proc/self/schedstat") >= 0;
  m.settings["reference_time"] =
      exclude_waiting ? "wall time minus run-queue wait (/proc/self/schedstat)" : "wall time";
  std::mt19937_64 order_rng(o.seed);
  const double sweep_mb = o.cache_sweep_mb >= 0 ? o.cache_sweep_mb : std::min(256.0, 2 * largest_cache_mb());
  m.settings["cache_sweep_mb"] = sweep_mb;
  CacheSweep sweep(sweep_mb);
  const int sweep_cpu = sweep_mb > 0 ? last_allowed_cpu() : -1;
  PinnedThread pinned(sweep_cpu);
  if (sweep_mb > 0 && !pinned.pinned()) m.notes.push_back("could not pin the cache sweep to the reference task's CPU");
  // Peers: [0] is the reference task, then the load processes in the order they started.
  struct Peer {
    std::unique_ptr<Worker> worker;
    double mb = 0;
  };
  std::vector<Peer> peers;
  std::uint64_t seed_stream = o.seed;
  auto next_seed = [&seed_stream] {  // splitmix64: one independent stream per peer
    std::uint64_t z = (seed_stream += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  double held_mb = 0;
  // Starts a peer of `mb` MB that first touches its memory at `fill_mb_per_s`; returns once it has.
  // The reference task and the cache sweep share one CPU (the load processes may use all).
  const int reference_cpu = sweep_cpu;
  auto start_peer = [&](double mb, double fill_mb_per_s) {
    const int cpu = peers.empty() ? reference_cpu : -1;
    const auto bytes = static_cast<std::size_t>(mb * kMiB) / kPage * kPage;
    const auto touches = static_cast<std::size_t>(std::ceil(o.touches_per_page * static_cast<double>(bytes / kPage)));
    const std::uint64_t seed = next_seed();
    const long pace = pace_ns_per_mib(fill_mb_per_s);
    peers.push_back({spawn(cgroup.get(),
                           [&](pid_t parent, int go, int ready) {
                             occupant_main(parent, go, ready, bytes, touches, seed, exclude_waiting, pace, cpu);
                           }),
                     mb});
    char k = 0;
    if (!read_exact(peers.back().worker->from_child.fd[0], &k, 1, 300, check)) {
      throw CurveStops("a process of the experiment could not fill its memory at " + mb_text(held_mb + mb) +
                       " MB occupied (killed or stalled)");
    }
    held_mb += mb;
  };
  start_peer(o.reference_mb, o.fill_mb_per_s);
  const auto reference_bytes = static_cast<std::size_t>(o.reference_mb * kMiB) / kPage * kPage;
  ControlTask control(
      reference_bytes,
      static_cast<std::size_t>(std::ceil(o.touches_per_page * static_cast<double>(reference_bytes / kPage))),
      next_seed(), exclude_waiting);
  DeviceControl device(swap_path, swap_mb, o.device_reads_per_round, next_seed());

  // One round: every peer makes its burst of touches, the reference at a random place among the load
  // processes (std::shuffle of all peers). The load processes before it run together, then the
  // reference alone (its time is the sample), then those after it together: the load processes' faults
  // overlap on the swap device, and the reference competes with the pages they touched, not with them
  // for the CPUs or the device while it is timed.
  std::vector<double> round_times;     // the reference's time per round of the current point
  std::vector<double> round_faults;    // its major faults per round
  std::vector<double> round_controls;  // the control's time per round
  std::vector<double> round_devices;   // the device control's read time after each round; -1: none
  // What a round returns to the stopping rule: the reference's time, or, at and beyond main memory,
  // its excess over the control, so that the rule asks for the precision of α there (at α 0.5 a 10%
  // interval of the time is a 30% interval of α).
  bool sample_excess = false;
  auto bursts = [&](const std::vector<std::size_t>& group) {
    std::vector<BurstReply> replies(group.size());
    for (std::size_t i : group) {
      char go = 'b';
      if (::write(peers[i].worker->to_child.fd[1], &go, 1) != 1) {
        throw CurveStops(std::string(i == 0 ? "the reference task" : "a load process") + " died at " +
                         mb_text(held_mb) + " MB occupied");
      }
    }
    for (std::size_t k = 0; k < group.size(); ++k) {
      if (!read_exact(peers[group[k]].worker->from_child.fd[0], &replies[k], sizeof(BurstReply), 600, check)) {
        throw CurveStops(std::string(group[k] == 0 ? "the reference task" : "a load process") + " died or hung at " +
                         mb_text(held_mb) + " MB occupied");
      }
    }
    return replies;
  };
  // Below main memory the caches are swept before the reference's burst, so that it runs cache-cold
  // at every occupation. Beyond it they are not: a swap-in after the sweep found the kernel's own
  // structures (page tables, swap cache) evicted as well and cost 1.3-4.5 times as much as in a round
  // without it (100-340 µs against 70-80 at the limit, measured on the VM of results/memory), a cost
  // of the method, not of the occupation. The control, timed right after the reference, is as warm as
  // it: rounds without a swap-in still read α 0 there.
  auto play_round = [&](bool timed) {
    std::vector<std::size_t> order(peers.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), order_rng);
    const auto at = static_cast<std::size_t>(std::find(order.begin(), order.end(), 0) - order.begin());
    bursts({order.begin(), order.begin() + static_cast<std::ptrdiff_t>(at)});
    if (timed && !sample_excess) sweep.run();
    const BurstReply r = bursts({0}).front();
    const double c = timed ? control.burst() : 0;
    bursts({order.begin() + static_cast<std::ptrdiff_t>(at) + 1, order.end()});
    if (!timed) return 0.0;
    round_controls.push_back(c);
    round_times.push_back(r.seconds);
    round_faults.push_back(r.major_faults);
    round_devices.push_back(device.round());  // every process idle: the device serves the reads alone
    return sample_excess ? r.seconds - c : r.seconds;
  };
  auto run_round = [&] { return play_round(true); };
  // Beyond main memory, before a point's rounds: untimed rounds until the cgroup has faulted in as
  // much memory as the reference task holds, or for the point's time cap. The step pushed out the
  // oldest pages, most of them the reference's; it faults them back, and the residency of every
  // process settles, over rounds, not seconds: at the limit α ran about 5 for the first 40 timed
  // rounds, 0.3-0.6 for the next 60, then about 1 (a 17 s visit, the cache swept every round then);
  // after 590 untimed rounds, a fifth as long each, the first 70 timed rounds read 0.86-1.07 per 10.
  // Further on every round swaps enough that the turnover takes 1-20 rounds.
  auto settle = [&](double cap_s) {
    const double start = monotonic_seconds();
    const std::uint64_t faults_at_start = watch.read().major_faults;
    std::size_t n = 0;
    while (monotonic_seconds() - start < cap_s) {
      const std::uint64_t now = watch.read().major_faults;
      const double faulted_mb = static_cast<double>(now - std::min(now, faults_at_start)) * kPage / kMiB;
      if (faulted_mb >= o.reference_mb) break;
      play_round(false);
      check();
      ++n;
    }
    return n;
  };
  RepeatOptions rounds = o.repeat;
  rounds.warmup = static_cast<std::size_t>(std::ceil(o.warmup_touches_per_page / o.touches_per_page));
  rounds.warmup_s = 0;

  // Rounds per point and pass: the point's rule shared out over the passes, so that a point spans as
  // many rounds and as much sampling time in all as one pass would give it.
  const std::size_t passes = o.passes;
  RepeatOptions pass_rounds = rounds;
  pass_rounds.min_samples = std::max<std::size_t>(3, (o.repeat.min_samples + passes - 1) / passes);
  pass_rounds.max_samples = std::max(pass_rounds.min_samples, (o.repeat.max_samples + passes - 1) / passes);
  pass_rounds.time_cap_s = o.repeat.time_cap_s / static_cast<double>(passes);

  SampleSummary idle;
  try {
    // This VM's processor needs a few hundred milliseconds of work to reach full speed (docs/probes.md).
    RepeatOptions first = rounds;
    first.warmup_s = 1;
    round_times.clear();
    round_faults.clear();
    round_controls.clear();
    round_devices.clear();
    idle = repeat_until_precise(first, run_round);
    m.reference_idle_s = idle;
  } catch (const CurveStops& e) {
    throw EnvironmentError(std::string("memory probe: no reference time without load: ") + e.what());
  }
  // What each occupation of the grid gathered over the passes.
  struct Gathered {
    std::vector<double> times;     // the reference's time per sampled round
    std::vector<double> faults;    // its major faults in those rounds
    std::vector<double> controls;  // the control's time in those rounds
    std::vector<double> devices;   // the device control's read time after them (-1: none)
    bool below_main = false;       // the occupation fits in main memory
    double held_mb = 0;            // the occupation (the same in every pass)
    double duration_s = 0;
    std::size_t settle_rounds = 0;  // untimed rounds before the timed ones, all passes
    double cgroup_major_faults = 0;
    std::optional<CgroupMemoryState> after;  // the cgroup after the point's last pass
    // The point's median read time of the device control, s; -1 when it made no read.
    double median_read_s() const {
      std::vector<double> reads;
      std::copy_if(devices.begin(), devices.end(), std::back_inserter(reads), [](double d) { return d > 0; });
      return reads.empty() ? -1 : median(reads);
    }
  };
  std::vector<Gathered> gathered(grid.size());
  std::size_t grid_end = grid.size();  // lowered when α passes max_slowdown: later passes stop there too
  std::string curve_end = "the last occupation of the grid";
  bool complete = true;
  std::size_t pass = 0;
  auto points_reached = [&gathered] {
    return std::count_if(gathered.begin(), gathered.end(), [](const Gathered& g) { return !g.times.empty(); });
  };
  try {
    for (; pass < passes; ++pass) {
      if (pass > 0) {
        // A new pass starts from the reference alone: every process ends (their memory and swap slots
        // freed) and a new reference task starts, so that none of its pages is left in swap.
        peers.clear();
        held_mb = 0;
        watch.settle(2);
        start_peer(o.reference_mb, o.fill_mb_per_s);
      }
      for (std::size_t i = 0; i < grid_end; ++i) {
        const double target = grid[i];
        const double point_start = monotonic_seconds();
        if (o.on_step) {
          o.on_step("pass " + std::to_string(pass + 1) + " of " + std::to_string(passes) + ": occupation " +
                        mb_text(target) + " MB of " + mb_text(grid[grid_end - 1]),
                    static_cast<double>(pass * grid.size() + i) / static_cast<double>(passes * grid.size()));
        }
        while (held_mb + 0.5 < target) {
          const double chunk = std::min(o.holder_mb, target - held_mb);
          if (cgroup) {
            std::string why =
                occupation_stop_reason(watch.start(), watch.read(), chunk, main_mb, swap_mb, o.swap_safety_fraction);
            if (!why.empty()) throw CurveStops(why + " (occupation " + mb_text(held_mb) + " MB)");
          }
          const bool into_swap = cgroup && held_mb + chunk > main_mb;
          start_peer(chunk, into_swap ? o.swap_fill_mb_per_s : o.fill_mb_per_s);
          watch.settle(2);
        }
        const std::uint64_t faults_before = watch.read().major_faults;
        // The first point of the first pass, the reference alone, is the idle measurement above.
        const bool is_idle = pass == 0 && i == 0;
        if (!is_idle) round_times.clear(), round_faults.clear(), round_controls.clear(), round_devices.clear();
        const bool below_main = !cgroup || held_mb < main_mb;
        sample_excess = !below_main;
        const std::size_t settled = below_main ? 0 : settle(pass_rounds.time_cap_s);
        // The sampled rounds come last in round_times, round_faults, round_controls and round_devices
        // (the warm-up rounds first). No warm-up seconds: what they waited for after a fill, the
        // processor's speed, the same-round control takes out of α (rounds of touches still warm the
        // pages), and beyond main memory the untimed rounds above let the residency settle.
        // Beyond main memory a point samples its whole time cap: there the reference's swap-ins come in
        // bursts tens of rounds long (the kernel reclaims and reactivates pages in batches), so the
        // interval of rounds taken as independent is too narrow, and points that stopped on it after 9-12
        // rounds read α up to 28% above the runs that went on (nine quick probes, results/memory).
        RepeatOptions point_rounds = pass_rounds;
        if (!below_main) point_rounds.target_relative_half_width = std::numeric_limits<double>::min();
        const std::size_t sampled_n = is_idle ? idle.n : repeat_until_precise(point_rounds, run_round).n;
        const auto sampled = [&sampled_n](const std::vector<double>& v) {
          return std::vector<double>(v.end() - static_cast<std::ptrdiff_t>(sampled_n), v.end());
        };
        const CgroupMemoryState after = watch.read();
        bool all_alive = true;
        for (const auto& peer : peers) all_alive = all_alive && alive(*peer.worker);
        if (!all_alive) throw CurveStops("a process of the experiment died at " + mb_text(held_mb) + " MB occupied");
        check();
        Gathered& g = gathered[i];
        g.held_mb = held_mb;
        g.below_main = below_main;
        g.settle_rounds += settled;
        for (auto [from, to] : {std::pair{&round_times, &g.times}, std::pair{&round_faults, &g.faults},
                                std::pair{&round_controls, &g.controls}, std::pair{&round_devices, &g.devices}}) {
          const std::vector<double> v = sampled(*from);
          to->insert(to->end(), v.begin(), v.end());
        }
        g.duration_s += monotonic_seconds() - point_start;
        if (cgroup) {
          g.cgroup_major_faults +=
              static_cast<double>(after.major_faults - std::min(after.major_faults, faults_before));
          g.after = after;
        }
        const double slowdown = median(sampled(round_times)) / idle.median - 1;
        if (slowdown > o.max_slowdown) {
          curve_end = "slowdown above max_slowdown";
          m.notes.push_back("stopped at " + mb_text(held_mb) + " MB: slowdown " + std::to_string(slowdown) +
                            " exceeds the maximum " + std::to_string(o.max_slowdown));
          grid_end = i + 1;
          break;
        }
      }
    }
  } catch (const CurveStops& e) {
    complete = false;
    curve_end = e.what();
    // Out of memory: end the newest load process so that tasks waiting for memory can go on and the
    // clean-up below does not race the cgroup's reclaim.
    if (e.out_of_memory() && peers.size() > 1) peers.pop_back();
    m.notes.push_back(std::string("curve incomplete: ") + e.what() + " in pass " + std::to_string(pass + 1) + " of " +
                      std::to_string(passes) + "; the " + std::to_string(points_reached()) +
                      " points measured before are kept");
  } catch (const Interrupted&) {
    complete = false;
    curve_end = "interrupted by a signal";
    m.notes.push_back("curve incomplete: interrupted by a signal at " + mb_text(held_mb) + " MB occupied in pass " +
                      std::to_string(pass + 1) + " of " + std::to_string(passes) + "; the " +
                      std::to_string(points_reached()) + " points measured before are kept");
  }
  // α per round (UniMPP paper eq. 3: TEM = TE·(1 + α)): the reference's time beyond what it would have
  // taken resident in that same round, over its time without memory pressure:
  //   α = (t − k·c) · (d / d_x) / t_0,   t_0 = k · median(c below main memory),
  // c the control's time in the round, k the reference's time over the control's in the rounds below
  // main memory without a swap-in (their median ratio: two processes on one CPU, alike but not the
  // same). The same-round control takes the machine's speed in that round out of the excess: the
  // resident touches of a round in a slow spell of the memory system are slow for the control too
  // (one run's reference took 0.80 ms a round in its first climb and 0.55 ms in its second). Below
  // main memory α is flat unless the occupation itself slows the reference (its page tables, its TLB),
  // which it does not do to the control. t_0 is the run's typical time of the reference's work in the
  // probe's standard condition, cache-cold, as below main memory (beyond it the rounds run without
  // the sweep, and their controls are faster).
  // d / d_x does for the swap device what c does for the processor. Beyond main memory the excess is
  // nearly all swap-ins, and their cost follows the device: over 45 quick probes (results/memory),
  // a point's excess per swap-in divided by its median read time d_x varied by 3-6% across runs, the
  // excess per swap-in alone by 9-13%. The reads move with the shared host's disk (spells of 2-30 s
  // at 80-100 µs, against 55-72 otherwise) and with the occupation (faster as the guest swaps more).
  // So each point's excess is scaled to one read time d for the whole run: a low quantile of the
  // points' median reads (device_reference_quantile), which a spell covering most of the run does not
  // move, as the run's median read did (once a whole run at 83 µs). The price: at the highest
  // occupations, whose reads run 10-15% faster than d, α is that much above what their rounds took.
  std::vector<double> ratios, controls_below, point_reads;
  for (const Gathered& g : gathered) {
    if (g.below_main) controls_below.insert(controls_below.end(), g.controls.begin(), g.controls.end());
    if (const double read_s = g.median_read_s(); read_s > 0) point_reads.push_back(read_s);
    for (std::size_t r = 0; r < g.times.size(); ++r) {
      if (g.below_main && g.faults[r] == 0 && g.controls[r] > 0) ratios.push_back(g.times[r] / g.controls[r]);
    }
  }
  const double k = ratios.empty() ? 1.0 : median(ratios);
  const double baseline_s = k * median(controls_below);
  const bool scaled = o.device_reference_quantile >= 0 && !point_reads.empty();
  const double device_s = scaled ? quantile_nearest_rank(point_reads, o.device_reference_quantile) : -1;
  m.settings["alpha"] =
      "(t - k c) (d / d_x) / t_0: reference time t less k times the same-round control's c, "
      "beyond main memory scaled to the run's read time d of the swap device, over t_0";
  m.settings["alpha_baseline_s"] = baseline_s;
  m.settings["alpha_baseline"] = "t_0 = k times the median of the control's time over the rounds below main memory";
  m.settings["control_ratio"] = k;
  m.settings["control_ratio_rounds"] = ratios.size();
  m.settings["passes_done"] = complete ? passes : pass;
  m.settings["device_reads_per_round"] = o.device_reads_per_round;
  m.settings["device_reference_quantile"] = o.device_reference_quantile;
  if (scaled) {
    m.settings["device_read_s"] = device_s;
    m.settings["device_scaling"] =
        "beyond main memory each point's excess times device_read_s over the point's median read time "
        "(device_scale); device_read_s: that quantile of the points' median reads";
  } else if (beyond_main) {
    m.notes.push_back(point_reads.empty()
                          ? "no device control (" + device.why_not() + "): the swap device's speed stays in alpha"
                          : std::string("device scaling off (device_reference_quantile -1): the swap device's "
                                        "speed stays in alpha"));
  }
  // A point is every pass's rounds at its occupation, pooled; it is precise when the pooled rounds of
  // the reference's time meet the point's rule.
  for (const Gathered& g : gathered) {
    if (g.times.empty()) break;  // not reached by the first pass: the curve stops before it
    const double point_read_s = g.median_read_s();
    // No swap-ins below main memory: nothing there waits for the device.
    const double scale = g.below_main ? 1 : memory_device_scale(point_read_s, device_s);
    std::vector<double> alpha;
    for (std::size_t r = 0; r < g.times.size(); ++r) {
      alpha.push_back(memory_round_alpha(g.times[r], g.controls[r], k, baseline_s, scale));
    }
    MemoryPoint point{g.held_mb, summarize(alpha)};
    // Precise by the rule the rounds were sampled under: the reference's time below main memory, its
    // excess over the control (α's precision) at and beyond.
    std::vector<double> judged = g.times;
    if (!g.below_main) {
      for (std::size_t r = 0; r < judged.size(); ++r) judged[r] -= g.controls[r];
    }
    point.slowdown.precise = precise_enough(summarize(judged), o.repeat);
    point.reference_major_faults = median(g.faults);
    point.duration_s = g.duration_s;
    if (point_read_s > 0) point.device_read_s = point_read_s;
    if (!g.below_main) {
      point.settle_rounds = static_cast<double>(g.settle_rounds);
      if (point_read_s > 0 && device_s > 0) point.device_scale = scale;
    }
    if (g.after) {
      point.swap_used_mb = g.after->swap_mb;
      point.charged_mb = g.after->charged_mb;
      point.cgroup_major_faults = g.cgroup_major_faults;
    }
    m.points.push_back(point);
  }
  m.settings["curve_complete"] = complete;
  m.settings["curve_end"] = curve_end;
  m.swap_measured = beyond_main && !m.points.empty() && m.points.back().occupied_mb > main_mb;
  m.knee_slowdown = o.knee_slowdown;
  m.knee_mb = memory_knee_mb(m.points, o.knee_slowdown);
  return m;
}

}  // namespace hetperf::probes
