// The validation matrix: the real runs `hetperf validate` makes on this machine, their
// predictions by the simulated back-end, and the accuracy figures and reports. The DPS paper measured
// its predictions the same way (seed 000/003 section 8: 71.4% within ±4%, 95% within ±12%), and
// UniMPP its integration curve (seed 001 section 4, Tables 3 and 7).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app_jobs.hpp"

namespace hetperf::validate {

struct ValidationRun {
  std::string id;        // "lu-n1024-r128-p2-basic"
  std::string group;     // "lu", "lu-removal", "integrate", "integrate-load"
  apps::AppJob job;            // what is predicted (one job alone on the computer)
  std::vector<std::string> arguments;  // of the real program after `mpiexec -n ranks`, program first
  int ranks = 1;
  // Filled in by the run:
  double predicted_s = 0;
  std::vector<double> measured_samples_s;
  double measured_s = 0;                          // median of the samples
  nlohmann::json predicted_iterations = nlohmann::json::array();  // LU
  nlohmann::json measured_iterations = nlohmann::json::array();   // LU, from the first sample
  // Spread of the repeats: (max − min) / median of the samples; 0 with fewer than two samples.
  double spread() const;
  double error() const { return measured_s > 0 ? (predicted_s - measured_s) / measured_s : 0; }
};

struct ValidationMatrixOptions {
  bool quick = false;
  int cores = 2;                 // of this machine: rank counts go up to twice this (oversubscribed)
  std::string computer;          // the profile's computer the runs go on
  std::string lu_program;        // paths of the real programs
  std::string integrate_program;
  std::string scratch;           // directory for the integration's disk writes
};

// The runs: LU over n, r, rank counts (1 .. 2 × cores), the three variants and node-removal points;
// integration with 10 to 100 concurrent processes (instances of one master and one worker), with and
// without disk and message load. --quick: a small matrix of a few minutes.
std::vector<ValidationRun> validation_matrix(const ValidationMatrixOptions& options, const Profile& profile);

// The block sizes the kernel probe must cover for the matrix (with neighbours for the fits).
std::vector<int> validation_kernel_blocks(bool quick);
// The rows of the LU shapes the probe times the kernels at (probe --lu-rows): the matrix's largest n.
int validation_lu_rows(bool quick);

struct Accuracy {
  std::size_t runs = 0;
  double within_5 = 0, within_10 = 0;  // shares of runs with |error| <= 5% and <= 10%
  double mean_abs_error = 0, max_abs_error = 0;
  std::string worst_run;
  // The noise floor: the median spread of the runs' own repeats, and the share of runs whose
  // repeats alone span more than ±5% of their median (a spread above 10%); 0 with single samples.
  double median_spread = 0, spread_over_10 = 0;
};
Accuracy accuracy(const std::vector<ValidationRun>& runs);

// The reports: CSV (one row per run), Markdown (figures, per-group accuracy, worst runs, table),
// and gnuplot scripts with their data inline (histogram of errors, measured against predicted,
// efficiency per iteration of the removal runs, integration curve). `command` is recorded.
std::string validation_csv(const std::vector<ValidationRun>& runs);
std::string validation_markdown(const std::vector<ValidationRun>& runs, const std::string& command,
                                const nlohmann::json& facts);
struct Picture {
  std::string file;  // "errors-histogram.png"
  std::string body;  // the gnuplot commands after the preamble: data, labels, the plot
  // The whole script (GnuplotScript's preamble, then `body`), drawing into `output`.
  std::string script(const std::filesystem::path& output) const;
};
std::vector<Picture> validation_pictures(const std::vector<ValidationRun>& runs);

}  // namespace hetperf::validate
