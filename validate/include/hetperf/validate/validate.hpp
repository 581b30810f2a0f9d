// The validate stage: predicted against measured on real runs of the applications on this machine
// (DPS paper section 8 measured the DPS simulator the same way). Options in, a summary out: it
// probes and calibrates this machine when no profile is given (calling the probes and calibrate
// libraries), runs the contention experiments of calibrate/, then the traced calibration runs and
// the matrix's runs interleaved in one seeded random order (so both sample the same states of the
// machine), fits the calibration traces, predicts every run of the matrix from them alone, and
// writes the reports and pictures.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/validate/matrix.hpp"
#include "hetperf/validate/statistics.hpp"

namespace hetperf::validate {

struct ValidateOptions {
  bool quick = false;   // a small matrix of a few minutes (CI)
  std::string profile;  // profile to predict with; empty: probe and calibrate into `out`
  std::string out;      // directory for the results (required)
  int repeat = 0;       // real runs per configuration, in a seeded random order; 0: 7
  // Up to this many runs per configuration (0: `repeat`): after the seeded order, further rounds, each
  // over the configurations whose measured median is not yet known to ±median_precision (its 95%
  // interval from order statistics), with calibration runs of their apps in the order's proportion
  // (further_round), in a seeded random order, until none is left or this many ran.
  int max_repeat = 0;
  double median_precision = 0.05;  // relative half-width of the measured median's 95% interval (> 0)
  // Seconds the further rounds may take; 0: no limit. Each round then takes the imprecise
  // configurations cheapest first (affordable), so the budget goes to the short runs, the least precise.
  double further_budget_s = 0;
  // Runs per calibration configuration (traces for calibrate --trace); 0: none. -1: 6, the fewest
  // whose median has a 95% interval from order statistics (the operations' run factors are scaled to
  // their median); 3 with `quick` (minutes, for CI) or a testbed, whose calibration of each computer
  // alone already takes 9-10% of its validated runs' time at 3 (results/testbed).
  int calibration_repeat = -1;
  int samples = 100;                // sampled predictions per configuration (1 .. 100000)
  std::uint64_t seed = 1;           // of the run order, the sampled predictions and the bootstrap
  double max_bias = 0.15;           // |overall bias| above this fails the summary
  double min_coverage = 0.40;       // coverage of the predicted 80% intervals below this fails it
  double max_error = 0.25;          // a run with a larger |error| makes the summary fail (> 0)
  std::string mpiexec = "mpiexec";  // MPI launcher
  std::string computer;             // the profile's computer that is this machine; empty: the first
  int timeout_s = 900;              // seconds before a real run is given up (1 .. 86400)
  std::string command;              // recorded in the reports
  std::string programs;             // directory of hetperf-lu and hetperf-integrate; empty: beside this program
  // A recorded validation's directory (its validation.json, profile.json and calibration-traces/):
  // nothing is run; its calibration traces are fitted again and its measured runs predicted again
  // with this build's models, so two models compare on the same measurements. Empty: run.
  std::string replay;
  // A testbed spec (hetperf.testbed/1): bring it up, probe every computer inside it (cpu, and the net
  // between the two computers the matrix uses), calibrate one profile of them, run testbed_matrix
  // across them with testbed_calibration_matrix's traced runs, take it down. Needs root. Empty: this
  // machine. With --replay: the recorded testbed validation's matrix.
  std::string testbed;
  std::string testbed_state_dir = "/run/hetperf-testbed";  // as `hetperf testbed --state-dir`
  // Apply the computers' re-touched pages, which calibrate records but does not apply (their probe's
  // fits.page_retouch), to the profile the validation predicts with.
  bool page_retouch = false;

  // False with the offending option, its value and the rule in `error` (Ceres' Options::IsValid).
  bool is_valid(std::string* error) const;
};

struct ValidateSummary {
  std::vector<ValidationRun> runs;
  Accuracy accuracy;
  nlohmann::json facts;              // machine, calibration figures, repeats
  std::vector<std::string> written;  // files written into `out`
  std::string pictures_skipped;      // why no pictures, when gnuplot is missing
  bool within_max_error = true;      // every run's |error| at most max_error
  Statistics overall;                // bias, coverage, shares of medians within ±5% and ±10%
  std::map<std::string, Statistics> groups;
  // Per axis along which validated configurations differ from every calibration run ("ranks",
  // "size", "variant", "computers"; held_out_axes), over the configurations that differ along it;
  // "calibrated regime": those along none.
  std::map<std::string, Statistics> axes;
  std::optional<Statistics> probe_only;  // the point predictions of the probes alone (no trace)
  // The same profile with the other model of an oversubscribed computer, sampled as the default
  // predictions are, overall and per axis: processor sharing with the hand-off when the profile
  // applies time-sliced cores (communication_cpu.time_slice_s, as calibrate does from the cpu
  // probe's slice), time-sliced cores when it records a measured slice it does not apply. Absent
  // when it neither applies nor records one.
  std::optional<Statistics> alternative;
  std::map<std::string, Statistics> alternative_axes;
  std::string alternative_model;   // "processor sharing" or "time-sliced 4.0 ms"
  double alternative_slice_s = 0;  // the slice applied there (the first computer's); 0: processor sharing
  double calibration_s = 0,
         validation_s = 0;    // wall seconds of the calibration runs (and experiments) and of the validated runs
  bool within_bounds = true;  // |overall bias| <= max_bias and coverage >= min_coverage
  std::string statistics_report()
      const;  // a few lines: overall, per group, per axis, probes only, the alternative, the cost
  std::string brief_report() const;  // one line: runs, shares within ±5% and ±10%, worst run
  std::string noise_report() const;  // one line on the repeats' own spread (empty with one repeat)
};

// Throws InputError for invalid options, EnvironmentError when a program is missing or fails, and
// probes::Interrupted on SIGINT (after removing its scratch files).
ValidateSummary run_validation(const ValidateOptions& options);

}  // namespace hetperf::validate
