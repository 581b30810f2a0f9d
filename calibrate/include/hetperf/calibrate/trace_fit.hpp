// Calibration in the applications' own regime (issue 14): operation time models fitted on real traces
// of hetperf-lu and hetperf-integrate (hetperf.trace/1, backend "mpi"), per computer, per operation and
// per number of the application's ranks computing at once on that computer (hetperf/model/app_model.hpp
// gives the forms). The micro-benchmark kernel models stay for computers without traces.
//
// Fit: weighted linear least squares of the operation's form on its calls, minimising the relative
// error Σ ((t̂_i − t_i) / t_i)², so that short and long calls count alike (Eigen's complete orthogonal
// decomposition, which also takes the minimum-norm solution where the calls do not separate every
// term, e.g. a single block size). Then each calibration run's state factor per operation (median of
// t_i / t̂_i over the run's calls) and the residuals ε_i = t_i / (t̂_i f_r) in bands of t̂.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "hetperf/model/app_model.hpp"

namespace hetperf::calibrate {

struct TraceFitOptions {
  std::string computer;          // the profile computer every trace was taken on; empty: each trace's run.host
  std::size_t values = 200;      // residual values kept per band (ResidualBand)
  std::size_t calls_per_band = 60;  // at least this many calls per residual band (at most 4 bands)
};

struct TraceFit {
  std::map<std::string, AppModels> by_computer;  // computer name -> its models
  std::vector<std::string> notes;                // traces or calls not used, and why
  std::vector<std::string> report;               // one line per model: calls, range, residual spread
  std::map<std::string, std::vector<std::filesystem::path>> traces_of;  // computer name -> every trace taken on it
};

// Reads and fits the traces. InputError naming the file and field for a malformed trace, a simulated
// one (backend "sim": not a measurement), or one without its run facts (host, ranks, cores).
TraceFit fit_traces(const std::vector<std::filesystem::path>& files, const TraceFitOptions& options = {});

}  // namespace hetperf::calibrate
