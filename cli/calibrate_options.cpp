// The options of `hetperf calibrate` (calibrate_args.hpp).
#include "checks.hpp"
#include "calibrate_args.hpp"

namespace hetperf::cli {

void add_calibrate_options(CLI::App* cmd, CalibrateArgs* args) {
  cmd->add_option("measurements", args->files, "Measurement files written by `hetperf probe`");
  cmd->add_option("-o,--out", args->out, "Platform profile to write (atomically)")->capture_default_str();
  cmd->add_option(
         "--name", args->names,
         "Computer names, comma-separated, one per positional measurement file in order (default: each file's machine)")
      ->delimiter(',');
  cmd->add_option("--group", args->groups, "Group label for measurement files: NAME=FILE[,FILE...] (repeatable)");
  cmd->add_option("--plots", args->plots,
                  "Directory for one picture per fit (data, curve, 95% band), drawn by gnuplot");
  cmd->add_option("--plot-format", args->plot_format, "Picture format: svg or png")->capture_default_str();
  cmd->add_flag("--report", args->report, "Print a readable summary of every fit");
  cmd->add_option(
      "--trace", args->traces,
      "Real application trace (hetperf-lu/hetperf-integrate --trace, hetperf.trace/1) to fit operation models "
      "on, in the application's own regime, per computer and operation (repeatable; docs/calibration.md)");
  cmd->add_option("--trace-computer", args->trace_computer,
                  "The profile's computer the traces were taken on (default: each trace's run.host)");
}

}  // namespace hetperf::cli
