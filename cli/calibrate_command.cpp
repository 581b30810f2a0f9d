// `hetperf calibrate`: measurement files in, platform profile out (with --report and --plots).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "commands.hpp"
#include "hetperf/calibrate/fit_plot.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/sha256.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "output.hpp"

namespace hetperf::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> files;
  std::string out = "platform.json";
  std::vector<std::string> names;
  std::vector<std::string> groups;
  std::string plots;
  std::string plot_format = "svg";
  bool report = false;
  std::vector<std::string> traces;
  std::string trace_computer;
};

// "--group fast=a.json,b.json": labels those files (adding them when not listed positionally).
void apply_groups(const std::vector<std::string>& groups, std::vector<std::string>& files,
                  std::vector<std::string>& file_groups) {
  for (const std::string& g : groups) {
    auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size()) {
      throw InputError("--group: expected NAME=FILE[,FILE...], got '" + g + "'");
    }
    std::string name = g.substr(0, eq), list = g.substr(eq + 1);
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t comma = std::min(list.find(',', start), list.size());
      std::string file = list.substr(start, comma - start);
      start = comma + 1;
      if (file.empty()) continue;
      auto it = std::find(files.begin(), files.end(), file);
      if (it == files.end()) {
        files.push_back(file);
        file_groups.push_back(name);
      } else {
        auto& slot = file_groups[static_cast<std::size_t>(it - files.begin())];
        if (!slot.empty() && slot != name)
          throw InputError("--group: " + file + " is in groups '" + slot + "' and '" + name + "'");
        slot = name;
      }
    }
  }
}

void print_report(const calibrate::Calibration& cal) {
  std::cout << "fits (" << cal.fits.size() << "):\n";
  for (const auto& r : cal.fits) {
    std::cout << "  " << r.summary.brief_report();
    if (!r.r2_meaningful) std::cout << " (flat regime: R² not a quality measure)";
    std::cout << "\n";
  }
  for (const Computer& c : cal.profile.computers) {
    if (!c.fits.contains("mips")) continue;
    const auto& m = c.fits["mips"];
    const auto& f = c.fits["mflops"];
    std::cout << "  " << c.name << ": MIPS " << m["value"].get<double>() << " [" << m["ci95"][0].get<double>() << ", "
              << m["ci95"][1].get<double>() << "], MFLOPS " << f["value"].get<double>() << " ["
              << f["ci95"][0].get<double>() << ", " << f["ci95"][1].get<double>() << "]\n";
    for (const char* key :
         {"disk_read_direct_bytes_per_s", "disk_write_direct_bytes_per_s", "disk_write_buffered_bytes_per_s"}) {
      // Absent where the disk was not probed (a testbed's computers share the host's disk).
      if (!c.fits.contains(key)) continue;
      const auto& d = c.fits[key];
      std::cout << "  " << c.name << ": " << key << " " << si(d["value"].get<double>(), "") << " ["
                << si(d["ci95"][0].get<double>(), "") << ", " << si(d["ci95"][1].get<double>(), "") << "]\n";
    }
  }
}

// The measurement files (positional and --group), named and grouped.
std::vector<calibrate::CalibrationInput> calibration_inputs(const CalibrateArgs& a) {
  if (!a.names.empty() && a.names.size() != a.files.size()) {
    throw InputError("--name: expected " + std::to_string(a.files.size()) + " names (one per measurement file), got " +
                     std::to_string(a.names.size()));
  }
  std::vector<std::string> files = a.files, file_groups(files.size());
  apply_groups(a.groups, files, file_groups);
  if (files.empty()) throw InputError("calibrate: expected at least one measurement file");
  std::vector<calibrate::CalibrationInput> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    inputs.push_back(calibrate::load_measurement(files[i]));
    if (i < a.names.size()) inputs.back().name = a.names[i];
    inputs.back().group = file_groups[i];
  }
  return inputs;
}

// The traces' operation models into the profile, with each calibration run's diagnostic (what the
// mechanisms miss there: reported and kept, never applied) and the traces' digests in its provenance.
calibrate::TraceFit fit_traces(const CalibrateArgs& a, calibrate::Calibration& cal) {
  calibrate::TraceFit trace_fit;
  if (a.traces.empty()) {
    if (!a.trace_computer.empty()) throw InputError("--trace-computer: given without --trace");
    return trace_fit;
  }
  calibrate::TraceFitOptions to;
  to.computer = a.trace_computer;
  to.eager_limit_bytes = cal.profile.network.eager_limit_bytes();
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

// One line per computer, and the network's.
void print_computers(const Profile& p) {
  std::cout << "computer            cores        MIPS   memory MB    read B/s   write B/s          lo\n";
  const bool network = p.network.bandwidth_bytes_per_s > 0;
  // "-": not measured (a partial profile).
  auto measured = [](double v, const char* unit) { return v > 0 ? si(v, unit) : std::string("-"); };
  for (const Computer& c : p.computers) {
    char line[256];
    std::snprintf(line, sizeof line, "%-18s %6d %11.1f %11.0f %11s %11s %11s\n", c.name.c_str(), c.cores, c.mips,
                  c.main_memory_mb, measured(c.disk_read_bytes_per_s, "").c_str(),
                  measured(c.disk_write_bytes_per_s, "").c_str(),
                  network ? si(c.overhead_latency_s, "s").c_str() : "-");
    std::cout << line;
  }
  if (network) {
    std::cout << "network: l = " << si(p.network.latency_s, "s")
              << ", b = " << si(p.network.bandwidth_bytes_per_s, "B/s") << ", " << p.network.regimes.size()
              << " regime(s), " << p.network.pairs.size() << " pair(s)\n";
  } else {
    std::cout << "network: not measured\n";
  }
}

int run_calibrate(const CalibrateArgs& a, const std::string& command_line) {
  calibrate::Calibration cal = calibrate::calibrate_platform(calibration_inputs(a), {command_line});
  const calibrate::TraceFit trace_fit = fit_traces(a, cal);
  const std::string plots_line = write_outputs(a, cal);
  print_computers(cal.profile);
  if (a.report) print_report(cal);
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
  cmd->callback(
      [&action, args, command_line] { action = [args, command_line] { return run_calibrate(*args, command_line); }; });
}

}  // namespace hetperf::cli
