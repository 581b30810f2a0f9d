// `hetperf predict`: simulate a workload on a platform profile and write the predicted response times.
#include <filesystem>
#include <iostream>
#include <map>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/apps/sim/console_report.hpp"
#include "checks.hpp"
#include "commands.hpp"
#include "event_rate.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/simulator/placement.hpp"
#include "hetperf/simulator/prediction_report.hpp"
#include "hetperf/simulator/unimpp_simulation.hpp"
#include "output.hpp"
#include "predict_args.hpp"

namespace hetperf::cli {
namespace {

// The tables, the warnings and the memory slowdown forms applied (UniMPP paper eq. 3), once per form.
void report(const Prediction& p, const Profile& profile, const sim::ProcessRowWriter& rows, const AppRuns& apps_run,
            const PredictArgs& args) {
  if ((rows.listed() && p.summary.processes > 0) || !apps_run.runs)
    sim::print_process_table(p, rows.first(), rows.listed() ? p.summary.processes : 0, args.rows, stdout);
  if (apps_run.runs) apps::print_app_table(*apps_run.runs, apps_run.sampled ? &*apps_run.sampled : nullptr, stdout);
  for (const auto& w : profile.warnings) std::cerr << "hetperf predict: profile warning: " << w << "\n";
  for (const auto& w : p.warnings) std::cerr << "hetperf predict: warning: " << w << "\n";
}

void report_slowdown_forms(const Profile& profile) {
  std::map<std::string, std::size_t> slowdown_forms;
  for (const Computer& c : profile.computers) {
    if (c.slowdown) ++slowdown_forms[c.slowdown->form()];
  }
  for (const auto& [form, n] : slowdown_forms) {
    std::cerr << "hetperf predict: memory slowdown α: " << form << " on " << n << " computer(s)\n";
  }
}

sim::SimulationOptions simulation_options(const PredictArgs& args) {
  sim::SimulationOptions options;
  if (!args.policy.empty()) options.placement = args.policy;
  if (args.seed >= 0) options.seed = static_cast<std::uint64_t>(args.seed);
  options.timeline_points = args.timeline_points;
  // Rows are written as processes finish, not kept: the JSON's and CSV's spools take 12 bytes a
  // process each beside the simulation's own memory.
  options.keep_processes = false;
  options.output_bytes_per_process = args.summary_only ? 0 : 24;
  if (args.max_memory_mib > 0)
    options.max_memory_bytes = static_cast<std::uint64_t>(args.max_memory_mib * (1 << 20));
  else if (auto available = available_memory_bytes())
    options.max_memory_bytes = *available;
  return options;
}

int run_predict(const PredictArgs& args, const std::string& command_line) {
  Profile profile = read_profile(args.platform);
  Workload workload = read_workload(args.workload);
  Binding binding = bind(workload, profile);
  sim::SimulationOptions options = simulation_options(args);
  // Every output is claimed before the simulation (a target that cannot be written is refused before
  // any work), written into its temporary file, and renamed only once all of them are complete.
  OutputSet outputs;
  AtomicFile& out = outputs.add(args.out, "--out");
  AtomicFile* csv_file = args.csv.empty() ? nullptr : &outputs.add(args.csv, "--csv");
  AtomicFile* timeline_file = args.timeline_csv.empty() ? nullptr : &outputs.add(args.timeline_csv, "--timeline-csv");
  sim::ProcessRowWriter rows({args.out, args.summary_only, args.rows}, out, csv_file);
  options.on_process = [&rows](const ProcessResult& r, std::uint64_t index) { rows.add(r, index); };
  EventRate rate;
  rate.start();
  Prediction p = sim::simulate(profile, workload, binding, args.workload, options);
  rate.stop();
  p.command = command_line;
  p.platform_file = args.platform;
  AppRuns apps_run;
  if (!predict_apps(args, profile, workload, binding, rate, p, apps_run)) return 0;
  std::size_t traces = 0;
  if (apps_run.runs && !args.trace_dir.empty()) {
    for (const auto& r : apps_run.runs->jobs) {
      outputs.write(std::filesystem::path(args.trace_dir) / (r.job->name + ".trace.json"), r.trace.dump(1) + "\n",
                    "--trace-dir");
      ++traces;
    }
  }
  rows.finish(p);
  if (timeline_file) timeline_file->write(sim::timeline_csv(p));
  outputs.commit();
  report(p, profile, rows, apps_run, args);
  rate.report("predict", p.summary.events);
  report_slowdown_forms(profile);
  std::cout << "wrote " << args.out << (args.csv.empty() ? "" : ", " + args.csv)
            << (args.timeline_csv.empty() ? "" : ", " + args.timeline_csv)
            << (traces == 0 ? "" : ", " + std::to_string(traces) + " traces in " + args.trace_dir) << "\n";
  return 0;
}

}  // namespace

void add_predict_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand("predict",
                                     "Simulate a workload on a platform profile (UniMPP model, UniMPP paper "
                                     "eq. 2-9) and predict each process's response time.");
  add_predict_options(cmd, args.get());
  cmd->callback(
      [&action, args, command_line] { action = [args, command_line] { return run_predict(*args, command_line); }; });
}

}  // namespace hetperf::cli
