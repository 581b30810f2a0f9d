// `hetperf predict`: simulate a workload on a platform profile and write the predicted response times.
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/apps/sim/console_report.hpp"
#include "hetperf/apps/mpi/sample_split.hpp"
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

namespace hetperf::cli {
namespace {

struct PredictArgs {
  std::string platform;
  std::string workload;
  std::string out = "prediction.json";
  std::string csv;
  std::string policy;
  std::int64_t seed = -1;
  std::size_t rows = 20;
  std::size_t timeline_points = 100;
  std::string timeline_csv;
  std::string trace_dir;
  bool summary_only = false;
  double max_memory_mib = 0;  // 0: the memory available
  std::size_t samples = 0;    // 0: the point prediction only
  unsigned threads = 0;       // 0: the machine's cores
};

// The workload's application jobs: their point predictions (and traces) into `p`, and with --samples
// their distributions. Under mpiexec only rank 0 goes on: false on the others, which gave it their
// samples.
struct AppRuns {
  std::vector<apps::AppJob> jobs;  // what runs' results point to
  std::optional<apps::AppPrediction> runs;
  std::optional<apps::SampledAppJobs> sampled;
};
bool predict_apps(const PredictArgs& args, const Profile& profile, const Workload& workload, const Binding& binding,
                  EventRate& rate, Prediction& p, AppRuns& out) {
  if (workload.apps.empty()) {
    if (args.samples > 0)
      throw InputError(args.workload + ": $.apps: missing: --samples predicts the distributions of application jobs");
    if (!args.trace_dir.empty())
      throw InputError(args.workload + ": $.apps: missing: --trace-dir needs application jobs in \"apps\"");
    return true;
  }
  out.jobs = apps::app_jobs(workload, binding);
  const std::vector<apps::AppJob>& jobs = out.jobs;
  apps::SimPlatform platform = apps::sim_platform_from_profile(profile);
  rate.start();
  out.runs = apps::predict_app_jobs(platform, profile, jobs, !args.trace_dir.empty());
  rate.stop();
  p.summary.events += out.runs->events;  // the summary counts every simulation's events, apps included
  for (const auto& r : out.runs->jobs) p.apps.push_back(r.json);
  std::set<std::string> model_warnings = *platform.model_warnings;
  if (args.samples > 0) {
    const std::uint64_t seed = p.seed;
    apps::SplitSamples split = apps::sample_app_jobs_split(profile, jobs, args.samples, seed, args.threads);
    if (!split.root) return false;
    apps::SampledAppJobs sampled = std::move(split.samples);
    model_warnings.insert(sampled.warnings.begin(), sampled.warnings.end());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      nlohmann::json d = apps::distribution_json(sampled.time_s[j]);
      d["typical"] = median(sampled.typical_s[j]);
      d["seed"] = seed;
      if (!sampled.process_response_s[j].empty()) {
        d["processes"] = nlohmann::json::array();
        for (const auto& s : sampled.process_response_s[j]) d["processes"].push_back(apps::distribution_json(s));
      }
      p.apps[j]["distribution"] = d;
    }
    out.sampled = std::move(sampled);
  }
  for (const auto& w : model_warnings) p.warnings.push_back(w);
  return true;
}

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
  std::string policies;
  for (const auto& [name, description] : sim::placement_policies()) policies += "\n    " + name + ": " + description;
  CLI::App* cmd = app.add_subcommand("predict",
                                     "Simulate a workload on a platform profile (UniMPP model, UniMPP paper "
                                     "eq. 2-9) and predict each process's response time.");
  cmd->add_option("-p,--platform", args->platform, "Platform profile written by `hetperf calibrate`")->required();
  cmd->add_option("-w,--workload", args->workload, "Workload file (see docs/formats.md)")->required();
  cmd->add_option("-o,--out", args->out, "Prediction JSON to write (atomically)")->capture_default_str();
  cmd->add_option("--csv", args->csv, "Also write per-process results as CSV to this file (default: none)");
  cmd->add_option("--policy", args->policy,
                  "Placement policy, overriding the workload's (default: the workload's "
                  "policy.placement, else round_robin):" +
                      policies);
  cmd->add_option("--seed", args->seed, "Random seed, overriding the workload's (default: the workload's seed, else 1)")
      ->check(seed_number());
  cmd->add_option("--rows", args->rows, "Processes (and computers) shown in the tables on stdout")
      ->capture_default_str();
  cmd->add_option("--timeline-points", args->timeline_points,
                  "Points of each computer's utilisation and memory timeline in the JSON (0: none)")
      ->capture_default_str();
  cmd->add_option("--timeline-csv", args->timeline_csv,
                  "Also write the computers' timelines as CSV to this file (default: none)");
  cmd->add_flag("--summary-only", args->summary_only,
                "Keep no per-process rows in memory or in --out (its summary and computers stay); --csv then gets "
                "the rows as processes finish, in finish order, so memory grows with the processes alive only");
  cmd->add_option("--max-memory", args->max_memory_mib,
                  "Refuse, before simulating, a run estimated to need more than this many MiB (default: the memory "
                  "the kernel says is available)")
      ->check(positive_number());
  cmd->add_option("--trace-dir", args->trace_dir,
                  "Write the simulated trace (hetperf.trace/1) of each application job of the workload's \"apps\" "
                  "to DIR/<name>.trace.json (default: none)");
  cmd->add_option("--samples", args->samples,
                  "Also predict the distribution of each application job's time: K simulations drawing operation times "
                  "from the trace-calibrated models' run states and residuals (calibrate --trace), seeded by --seed; "
                  "per job and process the median, mean, 5/10/90/95th percentiles and the samples (default: none). "
                  "Under `mpiexec -n N` the samples are split over the N processes; the output is the same")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  cmd->add_option("--threads", args->threads, "Threads the samples run on (default: the machine's cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->callback(
      [&action, args, command_line] { action = [args, command_line] { return run_predict(*args, command_line); }; });
}

}  // namespace hetperf::cli
