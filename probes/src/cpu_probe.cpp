// CPU probe: integer MIPS (perf_event retired instructions, or a documented estimate) and scalar MFLOPS.
#include "hetperf/probes/cpu_probe.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>
#include <memory>
#include <vector>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::probes {
namespace {

// A counter of retired user-space instructions of this thread, or nullopt where the kernel refuses.
class InstructionCounter {
 public:
  static std::optional<InstructionCounter> open() {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd < 0) return std::nullopt;
    InstructionCounter c(fd);
    // Some hypervisors open the event but never count: check that it moves.
    c.start();
    volatile std::uint64_t sink = integer_workload(100000, 1);
    (void)sink;
    if (c.stop() < 100000) return std::nullopt;
    return c;
  }
  InstructionCounter(InstructionCounter&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ~InstructionCounter() {
    if (fd_ >= 0) ::close(fd_);
  }
  void start() {
    ::ioctl(fd_, PERF_EVENT_IOC_RESET, 0);
    ::ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0);
  }
  std::uint64_t stop() {
    ::ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
    std::uint64_t count = 0;
    if (::read(fd_, &count, sizeof count) != sizeof count) return 0;
    return count;
  }

 private:
  explicit InstructionCounter(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace

#if defined(__x86_64__)
// Eleven instructions per iteration: three (mov, shift, xor) triples, dec, jnz. Written in assembly
// because the compiler's translation varies (g++ 12 -O3 emitted 12 for the equivalent C++ loop).
const double kInstructionsPerIteration = 11.0;
const bool kInstructionCountExact = true;

std::uint64_t integer_workload(std::uint64_t iterations, std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  if (iterations == 0) return x;
  std::uint64_t n = iterations, t = 0;
  asm volatile(
      "1:\n\t"
      "mov %[x], %[t]\n\t"
      "shl $13, %[t]\n\t"
      "xor %[t], %[x]\n\t"
      "mov %[x], %[t]\n\t"
      "shr $7, %[t]\n\t"
      "xor %[t], %[x]\n\t"
      "mov %[x], %[t]\n\t"
      "shl $17, %[t]\n\t"
      "xor %[t], %[x]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      : [x] "+r"(x), [n] "+r"(n), [t] "=&r"(t)
      :
      : "cc");
  return x;
}
#else
// Estimate for other architectures: three shift/xor pairs plus the loop's increment, compare and branch.
const double kInstructionsPerIteration = 9.0;
const bool kInstructionCountExact = false;

std::uint64_t integer_workload(std::uint64_t iterations, std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}
#endif

double float_workload(std::uint64_t iterations, double seed) {
  double a = seed, b = seed + 1, c = seed + 2, d = seed + 3;
  const double m = 0.999999, k = 1e-7;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    a = a * m + k;
    b = b * m + k;
    c = c * m + k;
    d = d * m + k;
  }
  return a + b + c + d;
}

nlohmann::json probe_cpu_settings(const CpuProbeOptions& options) {
  return nlohmann::json(
      {{"integer_iterations", options.integer_iterations},
       {"float_iterations", options.float_iterations},
       {"min_samples", options.repeat.min_samples},
       {"target_relative_half_width", options.repeat.target_relative_half_width},
       {"time_cap_s", options.repeat.time_cap_s},
       {"warmup_s", options.warmup_s},
       {"threads", 1},
       {"kernel_threads", options.kernel.threads},
       {"kernel_blocks", options.kernels ? nlohmann::json(options.kernel.blocks) : nlohmann::json::array()},
       {"kernel_lu_rows", options.kernel.lu_rows},
       {"kernel_min_time_per_sample_s", options.kernel.min_time_per_sample_s},
       {"kernel_cpu_share", options.kernel.cpu_share},
       {"integration_steps_per_call", options.kernel.integration_steps_per_call},
       {"time_slice_s", options.time_slice_s},
       {"page_retouch_rounds", options.page_retouch.rounds},
       {"page_retouch_seed", options.page_retouch.seed}});
}

CpuMeasurement probe_cpu(const CpuProbeOptions& options) {
  CpuMeasurement m;
  m.settings = probe_cpu_settings(options);
  auto counter = InstructionCounter::open();
  char per_iteration[32];
  std::snprintf(per_iteration, sizeof per_iteration, "%g", kInstructionsPerIteration);
  m.mips_method = counter ? "perf_event: retired user-space instructions"
                  : kInstructionCountExact
                      ? std::string(
                            "count: perf_event_open refused or not counting; the xorshift loop is fixed "
                            "x86-64 assembly of exactly ") +
                            per_iteration + " instructions per iteration"
                      : std::string("estimate: perf_event_open refused or not counting; about ") + per_iteration +
                            " instructions per iteration of the compiled xorshift loop";
  RepeatOptions repeat = options.repeat;
  repeat.warmup_s = std::max(repeat.warmup_s, options.warmup_s);
  std::uint64_t seed = 88172645463325252ULL;
  volatile std::uint64_t int_sink = 0;
  m.mips = repeat_until_precise(repeat, [&] {
    double t0 = monotonic_seconds();
    if (counter) counter->start();
    int_sink = integer_workload(options.integer_iterations, seed++);
    double instructions = counter ? static_cast<double>(counter->stop())
                                  : kInstructionsPerIteration * static_cast<double>(options.integer_iterations);
    double t1 = monotonic_seconds();
    return instructions / (t1 - t0) / 1e6;
  });
  volatile double float_sink = 0;
  double fseed = 1.0;
  m.mflops = repeat_until_precise(repeat, [&] {
    double t0 = monotonic_seconds();
    float_sink = float_workload(options.float_iterations, fseed);
    fseed += 1e-3;
    double t1 = monotonic_seconds();
    return 8.0 * static_cast<double>(options.float_iterations) / (t1 - t0) / 1e6;
  });
  (void)int_sink;
  (void)float_sink;
  if (options.kernels) m.kernels = probe_kernels(options.kernel);
  if (options.integration) m.integration_step_s = probe_integration_step(options.kernel);
  return m;
}

namespace {

double clock_s() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// In a child: spins for `seconds` and writes the gaps of at least 0.2 ms in its clock reads to `fd`.
[[noreturn]] void spin_and_report_gaps(int fd, double seconds) {
  constexpr std::size_t kMostGaps = 4096;
  std::vector<double> gaps;
  gaps.reserve(kMostGaps);
  const double start = clock_s();
  double last = start;
  while (last - start < seconds) {
    const double now = clock_s();
    if (now - last >= 2e-4 && gaps.size() < kMostGaps) gaps.push_back(now - last);
    last = now;
  }
  const auto* bytes = reinterpret_cast<const char*>(gaps.data());
  std::size_t left = gaps.size() * sizeof(double);
  while (left > 0) {
    const ssize_t n = ::write(fd, bytes, left);
    if (n <= 0) break;
    bytes += n;
    left -= static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

}  // namespace

std::optional<TimeSliceMeasurement> probe_time_slice(int cores, double seconds) {
  const int processes = std::max(1, cores) + 1;
  std::vector<std::unique_ptr<ChildProcess>> children;
  std::vector<int> reads;
  for (int p = 0; p < processes; ++p) {
    ReportingChild c = fork_reporting_child("time-slice probe", [&](int fd) { spin_and_report_gaps(fd, seconds); });
    children.push_back(std::move(c.process));
    reads.push_back(c.read_fd);
  }
  std::vector<double> gaps;
  for (int fd : reads) {
    double gap = 0;
    std::size_t have = 0;
    for (;;) {
      const ssize_t n = ::read(fd, reinterpret_cast<char*>(&gap) + have, sizeof gap - have);
      if (n < 0 && errno == EINTR && !interrupted()) continue;
      if (n <= 0) break;
      have += static_cast<std::size_t>(n);
      if (have == sizeof gap) gaps.push_back(gap), have = 0;
    }
    ::close(fd);
  }
  if (gaps.size() < 10) return std::nullopt;
  TimeSliceMeasurement m;
  m.processes = processes;
  m.seconds = seconds;
  m.gap_s = summarize(gaps);
  const std::optional<double> slice = slice_from_gaps(gaps);
  if (!slice) return std::nullopt;
  m.slice_s = std::clamp(*slice, 1e-5, 1.0);
  return m;
}

std::optional<double> slice_from_gaps(std::vector<double> gaps) {
  std::erase_if(gaps, [](double g) { return !(g >= 5e-4); });
  if (gaps.size() < 10) return std::nullopt;
  std::sort(gaps.begin(), gaps.end());
  const double low = gaps[gaps.size() / 10];
  std::vector<double> one_slice;
  for (double g : gaps) {
    if (g <= 1.5 * low) one_slice.push_back(g);
  }
  return median(one_slice);
}

}  // namespace hetperf::probes
