// CPU probe: integer MIPS (perf_event retired instructions, or a documented estimate) and scalar MFLOPS.
#include "hetperf/probes/cpu_probe.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <optional>

namespace hetperf::probes {
namespace {

// Instructions of one integer_workload iteration as compiled by g++ -O2 on x86-64 (shift, xor three
// times, plus the loop's add, compare and branch): used only when the kernel refuses perf counters.
constexpr double kEstimatedInstructionsPerIteration = 9.0;

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

std::uint64_t integer_workload(std::uint64_t iterations, std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

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

CpuMeasurement probe_cpu(const CpuProbeOptions& options) {
  CpuMeasurement m;
  m.settings = {{"integer_iterations", options.integer_iterations},
                {"float_iterations", options.float_iterations},
                {"min_samples", options.repeat.min_samples},
                {"target_relative_half_width", options.repeat.target_relative_half_width},
                {"time_cap_s", options.repeat.time_cap_s},
                {"threads", 1}};
  auto counter = InstructionCounter::open();
  m.mips_method = counter ? "perf_event: retired user-space instructions"
                          : "estimate: perf_event_open refused or not counting; " +
                                std::to_string(kEstimatedInstructionsPerIteration) +
                                " instructions per iteration of the xorshift loop (g++ -O2, x86-64)";
  std::uint64_t seed = 88172645463325252ULL;
  volatile std::uint64_t int_sink = 0;
  m.mips = repeat_until_precise(options.repeat, [&] {
    double t0 = monotonic_seconds();
    if (counter) counter->start();
    int_sink = integer_workload(options.integer_iterations, seed++);
    double instructions = counter ? static_cast<double>(counter->stop())
                                  : kEstimatedInstructionsPerIteration * static_cast<double>(options.integer_iterations);
    double t1 = monotonic_seconds();
    return instructions / (t1 - t0) / 1e6;
  });
  volatile double float_sink = 0;
  double fseed = 1.0;
  m.mflops = repeat_until_precise(options.repeat, [&] {
    double t0 = monotonic_seconds();
    float_sink = float_workload(options.float_iterations, fseed);
    fseed += 1e-3;
    double t1 = monotonic_seconds();
    return 8.0 * static_cast<double>(options.float_iterations) / (t1 - t0) / 1e6;
  });
  (void)int_sink;
  (void)float_sink;
  return m;
}

}  // namespace hetperf::probes
