// CPU probe (UniMPP's "mips"): MIPS of an integer workload, counting retired instructions with
// perf_event_open where the kernel allows it (else from the loop's known instruction count), MFLOPS
// of a scalar floating-point loop, and the timings of the apps' kernels (kernel_probe.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/kernel_probe.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

// The page re-touch probe: buffers of `pages` and `cap_pages` pages, each round one pass of each per
// gap, all in a seeded random order (PageRetouchMeasurement).
struct PageRetouchOptions {
  std::uint64_t pages = 1024;       // 4 MiB: the cost per page
  std::uint64_t cap_pages = 16384;  // 64 MiB: the most one rest costs
  int rounds = 9;                   // 0: none
  std::vector<double> gaps_s = {0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16};
  std::uint64_t seed = 1;
};

struct CpuProbeOptions {
  RepeatOptions repeat;
  std::uint64_t integer_iterations = 20'000'000;  // per sample of the integer workload
  std::uint64_t float_iterations = 10'000'000;    // per sample of the floating-point loop
  double warmup_s = 0.5;                          // discarded runs before MIPS and MFLOPS sampling, s (a
                                                  // VM's processor can take ~0.3 s to reach full speed)
  bool kernels = true;                            // time the BLAS/LAPACK kernels
  bool integration = true;                        // time the trapezium step
  int concurrency_rounds = 3;                     // rounds of the kernels' concurrent copies (0: none)
  double time_slice_s = 1;                        // how long the time-slice probe's processes spin (0: none)
  PageRetouchOptions page_retouch;                // rounds 0: none
  KernelProbeOptions kernel;                      // block sizes, threads, sampling of the kernels
};

CpuMeasurement probe_cpu(const CpuProbeOptions& options);
// The scheduler's time slice: cores + 1 processes spin for `seconds` (so that at least two share a
// core, as more MPI ranks than cores do, polling) and record the gaps of at least 0.2 ms in their
// clocks, when another ran in their place (slice_from_gaps). nullopt when fewer than 10 gaps were seen
// (a scheduler that did not time-slice them within `seconds`).
//     auto t = probe_time_slice(2, 1.0);   // on a 2-core Linux 6.18 VM: slice_s 0.004, the 250 Hz tick
std::optional<TimeSliceMeasurement> probe_time_slice(int cores, double seconds);
// The slice from the gaps: a gap is one slice when the spinner shares its core with one other, and a
// multiple of it when other processes of the machine queue there too (on this VM, with two compilers
// running, the gaps' median was 8 ms and their lowest tenth 4 ms). So: the median of the gaps of at
// least 0.5 ms (shorter ones are the hypervisor's, not the scheduler's) that are within 1.5 times the
// lowest tenth of them. nullopt with fewer than 10 such gaps.
std::optional<double> slice_from_gaps(std::vector<double> gaps);
// What writing a page costs after the process left it untouched for a gap, spinning meanwhile (a rank
// polling in MPI): every page is written, the process spins for the gap, then one byte of each page is
// written again, timed; per gap the median over the rounds. On this 2-core VM a pass over 1024 pages
// took 6 us at gap 0, 0.15-0.4 ms after 10 ms and 1.8-2.9 ms after 80 ms in two runs: what keeps a
// page cheap to touch is lost as other guests run (docs/calibration.md, "Re-touched pages"). nullopt
// when interrupted, or when the buffers would take more than half of the memory this process may use.
std::optional<PageRetouchMeasurement> probe_page_retouch(const PageRetouchOptions& options);
// The settings block recorded with the measurement.
nlohmann::json probe_cpu_settings(const CpuProbeOptions& options);

// The integer workload: a dependent chain of xorshift steps, `iterations` long. Returns the final
// state so the compiler cannot drop it. Exposed for tests. On x86-64 the loop is written in inline
// assembly so that its instruction count per iteration is known exactly (see
// kInstructionsPerIteration); elsewhere it is C++ and the count is an estimate.
// (Disassembly of the former C++ loop built by g++ 12 -O3 showed 12 instructions per iteration,
// not the 9 that had been assumed.)
std::uint64_t integer_workload(std::uint64_t iterations, std::uint64_t seed);
// Instructions per iteration of integer_workload, and whether that count is exact (fixed assembly).
extern const double kInstructionsPerIteration;
extern const bool kInstructionCountExact;
// The scalar floating-point loop: four independent multiply-add chains, 8 flops per iteration.
double float_workload(std::uint64_t iterations, double seed);

}  // namespace hetperf::probes
