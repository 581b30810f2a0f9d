// Time models of the block LU kernels (DPS paper sections 5-7: the LU flow graph's operations) as
// functions of the block size r, fitted on the probe's timings: the kernel's operation count gives the
// leading power (dgemm, dtrsm, dgetrf: r³; dlaswp: r²), a lower power absorbs memory traffic and a
// constant the call overhead.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_summary.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

// The powers of r fitted for `kernel`: {3, 2, 0} (t = a·r³ + b·r² + c) for dgemm, dtrsm and dgetrf,
// {2, 1, 0} for dlaswp. HETPERF_CHECK fails on another name (the measurement parser admits only these).
std::vector<int> kernel_model_powers(const std::string& kernel);

struct KernelModelFitOptions {
  std::string name;        // the fit's name, e.g. "c1: dgemm time"
  std::string kernel;      // "dgemm", "dtrsm", "dgetrf", "dlaswp"
  std::uint64_t rows = 0;  // carried into the model (dgetrf panel height, 0: square)
};

struct KernelModelFitSummary {
  KernelModel model;  // what the profile stores
  FitSummary fit;     // parameters "r<power>_s" (seconds per r^power); relative errors
};

// Block sizes > 0 and times > 0; needs one more distinct block size than the model has parameters
// (InputError otherwise).
KernelModelFitSummary fit_kernel_model(std::span<const double> block, std::span<const double> time_s,
                                       const KernelModelFitOptions& options);

}  // namespace hetperf::calibrate
