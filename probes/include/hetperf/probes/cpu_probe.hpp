// CPU probe (UniMPP's "mips"): MIPS of an integer workload, counting retired instructions with
// perf_event_open where the kernel allows it (else from the loop's known instruction count), MFLOPS
// of a scalar floating-point loop, and the timings of the apps' kernels (kernel_probe.hpp).
#pragma once

#include <cstdint>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/kernel_probe.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct CpuProbeOptions {
  RepeatOptions repeat;
  std::uint64_t integer_iterations = 20'000'000;  // per sample of the integer workload
  std::uint64_t float_iterations = 10'000'000;    // per sample of the floating-point loop
  double warmup_s = 0.5;                          // discarded runs before MIPS and MFLOPS sampling, s (a
                                                  // VM's processor can take ~0.3 s to reach full speed)
  bool kernels = true;                            // time the BLAS/LAPACK kernels
  bool integration = true;                        // time the trapezium step
  int concurrency_rounds = 3;                     // rounds of the kernels' concurrent copies (0: none)
  KernelProbeOptions kernel;                      // block sizes, threads, sampling of the kernels
};

CpuMeasurement probe_cpu(const CpuProbeOptions& options);
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
