// The validation matrix: the real runs `hetperf validate` makes on this machine, their
// predictions by the simulated back-end, and the accuracy figures and reports. The DPS paper measured
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

struct ValidationMatrixOptions {
  bool quick = false;
  int cores = 2;           // of this machine: rank counts go up to twice this (oversubscribed)
  std::string computer;    // the profile's computer the runs go on
  std::string lu_program;  // paths of the real programs
  std::string integrate_program;
  std::string scratch;                  // directory for the integration's disk writes
  std::string trace_dir;                // directory for the calibration runs' traces
  std::uint64_t cache_bytes = 8 << 20;  // the last-level cache of the computer: the LU sizes follow it (lu_sizes)
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

// The order of the real runs: every (configuration, repeat) pair of `configurations` × `repeats`,
// shuffled by a generator seeded with `seed` (Hoefler and Belli: interleave configurations in a random,
// recorded order rather than repeating back to back, so that a slow spell of the machine hits many).
std::vector<std::size_t> run_order(std::size_t configurations, int repeats, std::uint64_t seed);
// The same with `repeats[c]` runs of configuration c (calibration and validated configurations in
// one order); equal repeats give the order above.
std::vector<std::size_t> run_order(const std::vector<int>& repeats, std::uint64_t seed);

// The runs whose measured median is not yet known to ±`precision` (relative): the 95% interval of
// the median from order statistics (hetperf/model/statistics.hpp median_ci95) reaches further than
// that from it, or there are fewer than 3 measurements (no interval to speak of).
std::vector<std::size_t> imprecise_medians(const std::vector<ValidationRun>& runs, double precision);

// One further round of validate --max-repeat: the validated configurations `wide` (indices into
// `validated_apps`, each configuration's app) and, so that the calibration keeps sampling the
// machine's states alongside, calibration runs of the same apps in the seeded order's proportion:
// for an app with V validated and C calibration configurations, run `repeat` and
// `calibration_repeat` times in the order, each further validated run brings C·calibration_repeat /
// (V·repeat) calibration runs, drawn without replacement from that app's calibration
// configurations (`calibration_apps`; a fraction by a seeded draw). All in one seeded random order,
// numbered as run_order's: below validated_apps.size() a validated configuration, from it on
// validated_apps.size() + a calibration configuration.
std::vector<std::size_t> further_round(const std::vector<std::string>& validated_apps,
                                       const std::vector<std::size_t>& wide,
                                       const std::vector<std::string>& calibration_apps, int repeat,
                                       int calibration_repeat, std::uint64_t seed);

// Figures that separate model bias from machine noise, over configurations with several
// measured runs and a predicted distribution each:
//   signed error of a configuration  e = (predicted median − measured median) / measured median
//   bias                             the median of e, with a bootstrap 95% interval (configurations
//                                    resampled, percentile interval, seeded)
//   within_5 / within_10             shares of configurations with |e| ≤ 5% / 10%
//   coverage                         share of single measured runs inside their predicted 80% interval
//   median_width                     median of (p90 − p10) / predicted median
//   noise_floor                      median over configurations of the median |run − median| / median
//                                    of its runs: how far a single run typically lands from its own median
struct Statistics {
  std::size_t configurations = 0, runs = 0;
  double bias = 0, bias_low = 0, bias_high = 0;
  double within_5 = 0, within_10 = 0;
  double coverage = 0, median_width = 0, noise_floor = 0;
};
Statistics statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed = 1, int resamples = 2000);

// The axes along which `run` differs from every calibration run of the computers it runs on, from
// their calibrated ranges (AppModels::calibrated): "ranks" (its ranks on a computer not a calibrated
// count there), "size" (LU's n, an integration's steps, outside the calibrated sizes), "variant" (an
// LU variant not calibrated), "computers" (ranks on several computers, each calibrated alone). Empty:
// it lies in the calibrated regime (or no computer has a calibrated range).
std::vector<std::string> held_out_axes(const ValidationRun& run, const Profile& profile);
// statistics() per axis over the runs held out along it, and "calibrated regime" over those along none.
std::map<std::string, Statistics> axis_statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed = 1);
nlohmann::json to_json(const Statistics& s);

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
