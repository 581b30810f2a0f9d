// The validation matrix: the real runs `hetperf validate` makes on this machine and their predictions
// by the simulated back-end; run_order.hpp orders them, statistics.hpp and reports.hpp measure and
// report them. The DPS paper measured
// its predictions the same way (DPS paper section 8: 71.4% within ±4%, 95% within ±12%), and
// UniMPP its integration curve (UniMPP paper section 4, Tables 3 and 7).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/apps/sim/app_jobs.hpp"

namespace hetperf::validate {

struct ValidationRun {
  std::string id;                      // "lu-n1024-r128-p2-basic"
  std::string group;                   // "lu", "lu-removal", "integrate", "integrate-load", "calibrated"
  apps::AppJob job;                    // what is predicted (one job alone on the computer)
  std::vector<std::string> arguments;  // of the real program after `mpiexec -n ranks`, program first
  int ranks = 1;
  std::vector<std::string> hosts;  // a testbed's computer of every rank (mpiexec -hosts); empty: this machine
  // Filled in by the run:
  // The predicted median: the typical run's time (apps::SampledAppJobs::typical_s; the point without
  // samples). The 80% interval is that of single runs, the model error drawn.
  double predicted_s = 0;
  double point_s = 0;                               // the point prediction (no noise)
  double predicted_p10_s = 0, predicted_p90_s = 0;  // the predicted 80% interval
  std::vector<double> predicted_samples_s;
  std::vector<double> measured_samples_s;
  double measured_s = 0;                                          // median of the samples
  nlohmann::json predicted_iterations = nlohmann::json::array();  // LU
  nlohmann::json measured_iterations = nlohmann::json::array();   // LU, from the first sample
  std::vector<std::string> axes;                                  // held_out_axes
  double probe_only_s = 0;   // the point prediction of the probes' profile alone; 0: none
  double alternative_s = 0;  // the predicted median of the other processor model (Summary::alternative); 0: none
  double alternative_p10_s = 0, alternative_p90_s = 0;  // and its 80% interval
  // Spread of the repeats: (max − min) / median of the samples; 0 with fewer than two samples.
  double spread() const;
  double error() const { return measured_s > 0 ? (predicted_s - measured_s) / measured_s : 0; }
};

// The last-level cache the matrix's LU sizes follow (lu_sizes), and the probe's kernels with them
// (validation_lu_rows): 8 MiB, whatever sysfs says. A VM's sysfs shows its host's whole cache, shared
// with the host's other guests: 35.8 MiB and 480 MiB on the two hosts this VM has run on, where the
// matrix would have asked for n = 3072-7168 and 11264-23552 (4.4 GB, beyond a testbed computer's 2 GiB).
inline constexpr std::uint64_t kMatrixCacheBytes = std::uint64_t{8} << 20;

struct ValidationMatrixOptions {
  bool quick = false;
  int cores = 2;           // of this machine: rank counts go up to twice this (oversubscribed)
  std::string computer;    // the profile's computer the runs go on
  std::string lu_program;  // paths of the real programs
  std::string integrate_program;
  std::string scratch;                            // directory for the integration's disk writes
  std::string trace_dir;                          // directory for the calibration runs' traces
  std::uint64_t cache_bytes = kMatrixCacheBytes;  // the last-level cache the LU sizes follow (lu_sizes)
};

// The LU's orders: `calibrated`, two sizes whose matrices are out of the last-level cache (the
// smallest multiple of 512 with 8 n² >= 2 × cache_bytes, and 512 more), and `validated`, 1.5 and 2
// times the larger (quick: 1.5 times), rounded to 512.
struct LuSizes {
  std::vector<int> calibrated, validated;
};
LuSizes lu_sizes(bool quick, std::uint64_t cache_bytes);

// The runs, none of them a calibrated configuration: LU at the validated sizes on 1, C, C + 1 and 2C
// ranks and at the calibrated sizes on C + 1 and 2C, in the three variants and three block sizes
// (the calibrated sizes on 1 and C ranks in the variants not calibrated), node removal on 2C ranks;
// integration with 10 to 100 concurrent processes (instances of one master and one worker), with and
// without disk and message load. --quick: each axis once, a few minutes.
std::vector<ValidationRun> validation_matrix(const ValidationMatrixOptions& options, const Profile& profile);

// The block sizes the kernel probe must cover for the matrix (with neighbours for the fits).
std::vector<int> validation_kernel_blocks(bool quick);
// The rows of the LU shapes the probe times the kernels at (probe --lu-rows): the matrix's largest n.
int validation_lu_rows(bool quick, std::uint64_t cache_bytes);

// The runs the operation models are calibrated on (`hetperf calibrate --trace`), each with --trace:
// LU basic at the two calibrated sizes on 1 and C ranks, integration as one instance alone; none is a
// configuration of the validation matrix. `id` names the configuration; the arguments follow
// `mpiexec -n ranks`.
struct CalibrationRun {
  std::string id;
  int ranks = 1;
  std::vector<std::string> arguments;   // without --trace
  std::string shape;                    // "lu n=768 r=128", to show disjointness in the report
  std::vector<std::string> hosts = {};  // a testbed's computer of every rank; empty: this machine
};
std::vector<CalibrationRun> calibration_matrix(const ValidationMatrixOptions& options);

// The matrix across a testbed's computers: `fast` and `slow` name two of its computers (the
// slow one's ranks are the ones removed), each with one core. LU with one rank on each (both orders,
// the three variants, two n and r), four ranks mapped cyclically (f,s,f,s) and by blocks (f,f,s,s),
// removal of the slow computer's ranks, and integration instances whose masters and workers alternate
// between the two (workers on both kinds of computer), without and with 64 KiB messages across the
// link. Nothing writes to disk (the computers share the host's disk). Quick: a subset.
std::vector<ValidationRun> testbed_matrix(const ValidationMatrixOptions& options, const Profile& profile,
                                          const std::string& fast, const std::string& slow);
// Its calibration runs, traced and disjoint from it, each on one computer alone: LU on one rank at
// other n, and at n = 1280 on two ranks sharing the computer (its messages between local ranks); one
// integration instance with master and worker on the computer, at other step counts. So every
// validated job, which spans both, is held out along the computers axis: what crosses the link comes
// from the ping-pong probe.
std::vector<CalibrationRun> testbed_calibration_matrix(const ValidationMatrixOptions& options, const std::string& fast,
                                                       const std::string& slow);

// The axes along which `run` differs from every calibration run of the computers it runs on, from
// their calibrated ranges (AppModels::calibrated): "ranks" (its ranks on a computer not a calibrated
// count there), "size" (LU's n, an integration's steps, outside the calibrated sizes), "variant" (an
// LU variant not calibrated), "computers" (ranks on several computers, each calibrated alone). Empty:
// it lies in the calibrated regime (or no computer has a calibrated range).
std::vector<std::string> held_out_axes(const ValidationRun& run, const Profile& profile);

}  // namespace hetperf::validate
