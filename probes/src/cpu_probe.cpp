// CPU probe: integer MIPS (perf_event retired instructions, or a documented estimate) and scalar MFLOPS.
#include "hetperf/probes/cpu_probe.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

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
  return nlohmann::json({{"integer_iterations", options.integer_iterations},
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
                {"integration_steps_per_call", options.kernel.integration_steps_per_call}});
}

CpuMeasurement probe_cpu(const CpuProbeOptions& options) {
  CpuMeasurement m;
  m.settings = probe_cpu_settings(options);
  auto counter = InstructionCounter::open();
  char per_iteration[32];
  std::snprintf(per_iteration, sizeof per_iteration, "%g", kInstructionsPerIteration);
  m.mips_method = counter ? "perf_event: retired user-space instructions"
                  : kInstructionCountExact
                      ? std::string("count: perf_event_open refused or not counting; the xorshift loop is fixed "
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

}  // namespace hetperf::probes
