// `hetperf calibrate`: measurement files in, platform profile out (with --report and --plots).
#include <filesystem>
#include <iostream>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "commands.hpp"
#include "calibrate_args.hpp"
#include "hetperf/calibrate/console_report.hpp"
#include "hetperf/calibrate/fit_plot.hpp"
#include "hetperf/calibrate/measurement_inputs.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/sha256.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "output.hpp"

namespace hetperf::cli {
namespace {

// The traces' operation models into the profile, with each calibration run's diagnostic (what the
// mechanisms miss there: reported and kept, never applied) and the traces' digests in its provenance.
calibrate::TraceFit fit_traces(const CalibrateArgs& a, calibrate::Calibration& cal) {
  calibrate::TraceFit trace_fit;
  if (a.traces.empty()) {
    if (!a.trace_computer.empty()) throw InputError("--trace-computer: given without --trace");
    return trace_fit;
  }
  const calibrate::TraceFitOptions to = calibrate::trace_fit_options(cal.profile, a.trace_computer);
  std::vector<std::filesystem::path> traces(a.traces.begin(), a.traces.end());
  trace_fit = calibrate::fit_traces(traces, to);
  calibrate::apply_trace_fit(cal.profile, trace_fit);
  const auto diagnostics = apps::calibration_diagnostics(cal.profile, traces, a.trace_computer);
  apps::record_diagnostics(cal.profile, diagnostics);
  for (const auto& line : apps::diagnostics_report(diagnostics)) std::cout << line << "\n";
  for (const auto& t : a.traces) cal.profile.provenance.push_back({t, "", "", sha256_hex(read_text_file(t))});
  return trace_fit;
}

// The profile and the plots as one set: a failure anywhere leaves every previous output as it was.
// Returns the line that tells of the plots (empty without --plots).
std::string write_outputs(const CalibrateArgs& a, const calibrate::Calibration& cal) {
  OutputSet outputs;
  outputs.write(a.out, json_output_text(to_json(cal.profile), a.out), "--out");
  std::string plots_line;
  if (!a.plots.empty()) {
    // Drawn in a private directory, then added to the set with the profile.
    ScratchDir scratch("hetperf-fit-plots");
    calibrate::PlotOptions po;
    po.directory = scratch.path();
    po.format = a.plot_format;
    calibrate::PlotResult pr = calibrate::write_fit_plots(cal.fits, po);
    for (const auto& f : pr.files)
      outputs.write(std::filesystem::path(a.plots) / f.filename(), read_text_file(f), "--plots");
    plots_line = pr.skipped_reason.empty() ? "wrote " + std::to_string(pr.written.size()) + " plots to " + a.plots
                                           : "plots skipped: " + pr.skipped_reason;
  }
  outputs.commit();
  return plots_line;
}

int run_calibrate(const CalibrateArgs& a, const std::string& command_line) {
  calibrate::Calibration cal =
      calibrate::calibrate_platform(calibrate::load_measurements(a.files, a.names, a.groups), {command_line});
  const calibrate::TraceFit trace_fit = fit_traces(a, cal);
  const std::string plots_line = write_outputs(a, cal);
  calibrate::print_profile_table(cal.profile, std::cout);
  if (a.report) calibrate::print_fit_report(cal, std::cout);
  if (!a.traces.empty()) {
    std::cout << "operation models from " << a.traces.size() << " traces:\n";
    for (const auto& line : trace_fit.report) std::cout << "  " << line << "\n";
    for (const auto& note : trace_fit.notes) std::cerr << "hetperf calibrate: note: " << note << "\n";
  }
  if (!plots_line.empty()) std::cout << plots_line << "\n";
  for (const auto& w : cal.profile.warnings) std::cerr << "hetperf calibrate: warning: " << w << "\n";
  std::cout << "wrote " << a.out << "\n";
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand("calibrate",
                                     "Turn measurement files (one per machine) into a platform profile: "
                                     "the computers' capacities, memory slowdown and kernel models, and the "
                                     "network model t = l + s/b per protocol regime, with fit quality.");
  add_calibrate_options(cmd, args.get());
  cmd->callback(
      [&action, args, command_line] { action = [args, command_line] { return run_calibrate(*args, command_line); }; });
}

}  // namespace hetperf::cli
