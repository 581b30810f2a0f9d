// CPU probe (the seed's "mips"): MIPS of an integer workload, counting retired instructions with
// perf_event_open where the kernel allows it, and MFLOPS of a scalar floating-point loop.
#pragma once

#include <cstdint>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct CpuProbeOptions {
  RepeatOptions repeat;
  std::uint64_t integer_iterations = 20'000'000;  // per sample of the integer workload
  std::uint64_t float_iterations = 10'000'000;    // per sample of the floating-point loop
};

CpuMeasurement probe_cpu(const CpuProbeOptions& options);

// The integer workload: a dependent chain of xorshift steps, `iterations` long. Returns the final
// state so the compiler cannot drop it. Exposed for tests.
std::uint64_t integer_workload(std::uint64_t iterations, std::uint64_t seed);
// The scalar floating-point loop: four independent multiply-add chains, 8 flops per iteration.
double float_workload(std::uint64_t iterations, double seed);

}  // namespace hetperf::probes
