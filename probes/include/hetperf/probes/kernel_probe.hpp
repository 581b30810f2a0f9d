// Timings of the compute kernels the apps use, measured with Google Benchmark: OpenBLAS dgemm, dtrsm,
// dgetrf and dlaswp on r x r blocks (the block LU of DPS paper sections 5-7), and one step of the
// trapezium rule for the integral of 2 sin x + e^x (the integration app).
//
// Google Benchmark chooses how many calls make one repetition (at least `min_time_per_sample_s`);
// each repetition is one sample of the time per call, warm-up repetitions are dropped, and more
// repetitions are run until the 95% confidence rule of repeat.hpp is met or its time cap is hit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct KernelProbeOptions {
  std::vector<std::string> kernels = {"dgemm", "dtrsm", "dgetrf", "dlaswp"};
  std::vector<std::uint64_t> blocks = {32, 64, 128, 256, 512, 1024};  // block sizes r
  int threads = 1;                                                    // OpenBLAS threads (openblas_set_num_threads)
  double min_time_per_sample_s = 0.05;                                // Google Benchmark MinTime of one repetition
  std::uint64_t integration_steps_per_call = 10000;                   // trapezium steps timed together, then divided
  // > 0: also time every kernel at the block LU's own shapes in a matrix of this many rows (leading
  // dimension lu_rows: tall gemm and getrf, strided trsm and laswp; kernel_probe.cpp), recorded with
  // `rows` = lu_rows. At least twice the largest block. 0: compact r x r blocks only.
  std::uint64_t lu_rows = 0;
  // Below 1: the CPU quota this process runs under (HostInfo::cpu_quota), in cores; the manually
  // timed kernels (dtrsm, dgetrf) then take their thread's CPU time over it (kernel_probe.cpp).
  double cpu_share = 1;
  RepeatOptions repeat;  // min_samples, target, time cap (per kernel and block)
  StepCallback on_step;  // optional progress

  // Empty when valid, else a message naming the option and the rule it breaks.
  std::string validate() const;
};

// Times every kernel at every block size (and LU shape); the result is ordered by (kernel, rows, block).
std::vector<KernelTiming> probe_kernels(const KernelProbeOptions& options);

// The speed of the LU's kernels with k copies running at once, k = 1 .. cores (the ranks of a computer
// share its caches and memory bandwidth): in each of `rounds` rounds, k forked processes at once run the
// trailing update's dgemm ((lu_rows − 128) × 128 by 128 × 128, leading dimension lu_rows, or 2048
// rows) for `seconds`; s(k) is the median over the rounds of the k copies' mean rate over the rate of
// one copy alone in the same round, at most 1. Interrupted: the speeds of the copies measured.
ConcurrencyMeasurement probe_concurrency(const KernelProbeOptions& options, int cores, int rounds = 3,
                                         double seconds = 0.25);

// Seconds per trapezium step of the integral of 2 sin x + e^x.
SampleSummary probe_integration_step(const KernelProbeOptions& options);

// The integrand and `steps` steps of the trapezium rule on [a, b] (exposed for tests).
double integrand(double x);
double trapezium_integral(double a, double b, std::uint64_t steps);

// OpenBLAS's configuration string (openblas_get_config), the core its kernels were chosen for
// (openblas_get_corename, e.g. "Haswell", "SkylakeX", "Prescott"), and the Google Benchmark version.
std::string openblas_config();
std::string openblas_corename();
// A warning when OpenBLAS runs kernels for narrower vector units than the CPU has (`cpu_flags`: the
// flags line of /proc/cpuinfo): a generic or SSE-era core on an AVX2 CPU, or an AVX2-era core on an
// AVX-512 CPU (OpenBLAS too old for the CPU, or OPENBLAS_CORETYPE forcing it). Empty when none.
std::string blas_kernel_warning(const std::string& corename, const std::string& cpu_flags);
std::string google_benchmark_version();

}  // namespace hetperf::probes
