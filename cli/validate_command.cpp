// `hetperf validate`: parses the options and prints the summary of the validate stage
// (validate/include/hetperf/validate/validate.hpp), which runs the matrix of LU and integration runs
// on this machine with its calibration runs, predicts the matrix from those, and writes the reports.
#include <cstdio>

#include "commands.hpp"
#include "validate_options.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/validate/validate.hpp"

namespace hetperf::cli {

namespace {

// Runs the validation and prints its summary; exit 1 when a bound is exceeded, 130 when interrupted.
int run_validate(const validate::ValidateOptions& o) {
  validate::ValidateSummary s;
  try {
    s = validate::run_validation(o);
  } catch (const probes::Interrupted&) {
    // Unwound: the scratch directory and the runs' processes are gone; no report was written.
    std::fprintf(stderr, "validate: interrupted; no report written\n");
    return 130;
  }
  std::printf("%s\n", s.brief_report().c_str());
  if (std::string noise = s.noise_report(); !noise.empty()) std::printf("%s\n", noise.c_str());
  std::printf("%s\n", s.statistics_report().c_str());
  if (!s.pictures_skipped.empty()) std::fprintf(stderr, "validate: %s\n", s.pictures_skipped.c_str());
  std::printf("wrote %s/validation.{csv,md,json}%s\n", o.out.c_str(),
              s.pictures_skipped.empty() ? " and pictures" : "");
  if (!s.within_max_error) {
    std::fprintf(stderr, "validate: %s is off by %.1f%%, more than --max-error %.0f%%\n", s.accuracy.worst_run.c_str(),
                 100 * s.accuracy.max_abs_error, 100 * o.max_error);
    return 1;
  }
  if (!s.within_bounds) {
    std::fprintf(stderr,
                 "validate: overall bias %+.1f%% (bound ±%.0f%%) or coverage %.0f%% (bound %.0f%%) out of bounds\n",
                 100 * s.overall.bias, 100 * o.max_bias, 100 * s.overall.coverage, 100 * o.min_coverage);
    return 1;
  }
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto o = std::make_shared<validate::ValidateOptions>();
  o->command = command_line;
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Run a matrix of LU and integration runs on this machine for real, predict them from calibration runs "
      "disjoint from them, and report the "
      "prediction errors (validation.csv, validation.md, pictures).");
  add_validate_options(cmd, o.get());
  cmd->callback([&action, o] { action = [o] { return run_validate(*o); }; });
}

}  // namespace hetperf::cli
