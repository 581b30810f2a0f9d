// The real runs of a validation: one warm-up, then the validated and the traced calibration runs
// interleaved in one seeded order (run_order), then the further rounds of --max-repeat over the
// configurations whose medians are not yet precise (imprecise_medians, further_round), within an
// optional time budget.
//
//   RealRunsPlan plan;  // repeats, precision, seed, where the traces go
//   RealRunsTime t = run_real_runs(plan, runs, calibration, launch);
//   // runs[*].measured_samples_s filled; t.traces to fit
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/validate/matrix.hpp"

namespace hetperf::validate {

// One launch of `ranks` ranks of a program (`arguments`, program first) on `hosts` (a testbed's
// computer per rank; empty: this machine), to its end: the summary line it printed last.
using Launch = std::function<nlohmann::json(int ranks, const std::vector<std::string>& arguments,
                                            const std::vector<std::string>& hosts)>;

struct RealRunsPlan {
  int repeat = 7;                  // runs of every validated configuration in the seeded order
  int calibration_repeat = 6;      // runs of every calibration configuration in it
  int max_repeat = 7;              // up to this many per validated configuration, in further rounds
  double median_precision = 0.05;  // a median known to ± this (95% interval) needs no further run
  // Seconds the further rounds may take (validated and calibration runs); <= 0: no limit. Each round
  // then takes the imprecise configurations cheapest first (affordable) within what is left divided
  // by the rounds left, and the rounds stop when the budget is spent, even within a round.
  double further_budget_s = 0;
  std::uint64_t seed = 1;
  std::string integrate_program;    // which calibration runs are the integration's
  std::filesystem::path scratch;    // for the removal runs' traces
  std::filesystem::path trace_dir;  // the calibration traces: <configuration id>-<k>.json
};

struct RealRunsTime {
  double calibration_s = 0;                   // wall time of the traced calibration runs
  double validation_s = 0;                    // and of the validated runs (warm-up excluded)
  double further_s = 0;                       // of the further rounds' runs (both kinds)
  std::vector<std::filesystem::path> traces;  // the calibration traces written, sorted
};

// Runs everything `plan` says on `launch`, filling runs[*].measured_samples_s (and the first
// measured_iterations of the "lu-removal" group); progress on stderr. Throws what `launch` throws,
// and probes' interrupt on SIGINT between runs.
RealRunsTime run_real_runs(const RealRunsPlan& plan, std::vector<ValidationRun>& runs,
                           const std::vector<CalibrationRun>& calibration, const Launch& launch);

}  // namespace hetperf::validate
