// `hetperf schedule`: simulate a stream of parallel jobs (a workload's "jobs" or an SWF trace) under a
// batch policy and write each job's wait, turnaround and bounded slowdown, the utilisation over time
// and the processor allocation history, as JSON, CSV, SWF and (optionally) gnuplot pictures.
#include <iostream>
#include <algorithm>
#include <utility>

#include "hetperf/apps/sim/schedule_input.hpp"
#include "checks.hpp"
#include "commands.hpp"
#include "event_rate.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/simulator/batch/schedule.hpp"
#include "hetperf/simulator/batch/schedule_report.hpp"

namespace hetperf::cli {
namespace {

namespace batch = hetperf::sim::batch;

struct ScheduleArgs {
  std::string workload;
  std::string swf;
  std::int64_t processors = 0;
  std::string policy;
  std::string platform;
  std::string out = "schedule.json";
  std::string swf_out;
  std::string csv;
  std::string allocation_csv;
  std::string plot_dir;
  std::size_t rows = 20;
  std::size_t plot_jobs = 30;
  bool summary_only = false;
  std::string swf_procs = "allocated";
  bool kill_at_limit = true;
};

// The table, the skipped jobs (the first few; all are in the JSON's "skipped"), the warnings and what
// was written.
void report(const batch::ScheduleResult& r, const batch::JobRowWriter& rows, const ScheduleArgs& args) {
  batch::print_schedule_table(r, rows.first(), rows.listed(), args.rows, stdout);
  const std::size_t shown = std::min<std::size_t>(r.skipped.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& s = r.skipped[i];
    std::cerr << "hetperf schedule: warning: skipped job " << s.id << " (" << s.where << "): " << s.reason << "\n";
  }
  if (r.skipped.size() > shown) {
    std::cerr << "hetperf schedule: warning: " << r.skipped.size() - shown << " more jobs skipped (listed under "
              << "\"skipped\" in " << args.out << ")\n";
  }
  for (const auto& w : r.warnings) std::cerr << "hetperf schedule: warning: " << w << "\n";
}

int run_schedule(const ScheduleArgs& args, const std::string& command_line) {
  apps::ScheduleInput in =
      apps::read_schedule_input({args.workload, args.swf, args.platform, args.policy, args.processors,
                                 args.swf_procs == "requested", args.kill_at_limit});
  const batch::Cluster cluster = in.cluster();
  // Every output is claimed before the simulation (a target that cannot be written is refused before
  // any work), written into its temporary file, and renamed only once all of them are complete.
  OutputSet outputs;
  AtomicFile& out = outputs.add(args.out, "--out");
  AtomicFile* csv = args.csv.empty() ? nullptr : &outputs.add(args.csv, "--csv");
  AtomicFile* alloc = args.allocation_csv.empty() ? nullptr : &outputs.add(args.allocation_csv, "--allocation-csv");
  AtomicFile* swf_out = args.swf_out.empty() ? nullptr : &outputs.add(args.swf_out, "--swf-out");
  // The jobs themselves are kept only for the outputs that need every job's allocation history.
  batch::ScheduleOutput output;
  output.keep_jobs = swf_out || alloc || !args.plot_dir.empty();
  output.keep_utilisation = !args.summary_only;
  if (auto available = available_memory_bytes()) output.max_memory_bytes = *available;
  // A malleable job's row holds every iteration: about 200 bytes of text each, in a string that may
  // have doubled past it.
  if (!args.summary_only) output.row_bytes_per_iteration = 512;
  batch::JobRowWriter rows({args.out, args.summary_only, args.rows}, out, csv);
  output.on_job = [&rows](const batch::JobResult& job, std::size_t index) { rows.add(job, index); };
  EventRate rate;
  rate.start();
  batch::ScheduleResult r = batch::simulate_schedule(cluster, in.jobs, in.options, std::move(in.skipped), output);
  rate.stop();
  r.swf_import = in.swf_import;
  // No host facts or clock time: the same inputs give byte-identical output.
  rows.finish({{"hetperf_version", kVersion},
               {"command", command_line},
               {"inputs", {{"workload", args.workload}, {"swf", args.swf}, {"platform", args.platform}}}},
              r);
  if (alloc) alloc->write(batch::allocation_csv(r));
  if (swf_out) swf_out->write(batch::format_swf(batch::to_swf(r, in.trace ? &*in.trace : nullptr)));
  const std::string plots =
      args.plot_dir.empty() ? "" : batch::add_schedule_plots(r, args.plot_dir, args.plot_jobs, outputs);
  outputs.commit();
  report(r, rows, args);
  rate.report("schedule", r.summary.events);
  if (!plots.empty()) std::cout << plots << "\n";
  std::cout << "wrote " << args.out;
  for (const auto* f : {&args.csv, &args.allocation_csv, &args.swf_out}) {
    if (!f->empty()) std::cout << ", " << *f;
  }
  std::cout << "\n";
  return 0;
}

}  // namespace

void add_schedule_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<ScheduleArgs>();
  std::string policies;
  for (const auto& [name, description] : sim::batch::batch_policies()) policies += "\n    " + name + ": " + description;
  CLI::App* cmd = app.add_subcommand(
      "schedule",
      "Simulate parallel jobs (a workload's \"jobs\" or an SWF trace) under a batch policy: per-job wait, "
      "turnaround and bounded slowdown, utilisation, processor allocation history.");
  auto* workload =
      cmd->add_option("-w,--workload", args->workload,
                      "Workload file with a \"jobs\" array and optional \"scheduler\" (docs/scheduling.md)");
  auto* swf = cmd->add_option("--swf", args->swf, "Standard Workload Format trace to schedule instead of a workload");
  workload->excludes(swf);
  swf->excludes(workload);
  cmd->add_option("--swf-procs", args->swf_procs,
                  "With --swf: the processors a job needs, \"allocated\" (field 5: what it ran on, which its "
                  "recorded run time belongs to) or \"requested\" (field 8); each falls back to the other when missing")
      ->check(CLI::IsMember({"allocated", "requested"}))
      ->capture_default_str();
  cmd->add_option("--kill-at-limit", args->kill_at_limit,
                  "With --swf: a job that ran past its requested time (field 9) is killed at that limit, as real "
                  "schedulers do (true), or runs its whole recorded time (false); jobs without field 9 run their "
                  "recorded time and backfilling sees it exactly (counted in the summary)")
      ->capture_default_str();
  cmd->add_option("--processors", args->processors,
                  "Cluster size when no --platform is given (default: the workload's scheduler.processors, or the "
                  "trace's MaxProcs, else MaxNodes)")
      ->check(positive_number());
  cmd->add_option("--policy", args->policy,
                  "Batch policy (default: the workload's scheduler.policy, else fcfs):" + policies);
  cmd->add_option("-p,--platform", args->platform,
                  "Platform profile: one processor per core of each computer, speed mips / fastest mips, and its "
                  "network model for redistribution costs (default: none, a homogeneous cluster of unit-speed "
                  "processors)");
  cmd->add_option("-o,--out", args->out, "Schedule JSON to write (atomically)")->capture_default_str();
  auto* swf_out =
      cmd->add_option("--swf-out", args->swf_out, "Also write the simulated schedule as SWF (default: none)");
  cmd->add_option("--csv", args->csv, "Also write one CSV line per job (default: none)");
  auto* summary_only = cmd->add_flag(
      "--summary-only", args->summary_only,
      "Keep no per-job rows in memory or in --out (its summary and skipped jobs stay; \"jobs\" and "
      "\"utilisation\" are empty); --csv then gets the rows as jobs finish, in finish order, so memory grows "
      "with the jobs alive only. Without it --out holds every row, however many");
  auto* allocation_csv = cmd->add_option("--allocation-csv", args->allocation_csv,
                                         "Also write every processor-count change of every job as CSV (default: none)");
  auto* plot_dir =
      cmd->add_option("--plot-dir", args->plot_dir,
                      "Write gnuplot data, script and PNG pictures of the allocation history and busy processors to "
                      "this directory (default: none; pictures are skipped with a message when gnuplot is missing)");
  cmd->add_option("--plot-jobs", args->plot_jobs, "Jobs drawn in the allocation picture")->capture_default_str();
  cmd->add_option("--rows", args->rows, "Jobs shown in the table on stdout")->capture_default_str();
  // These need every job's rows (or allocation history) at the end.
  for (auto* o : {swf_out, allocation_csv, plot_dir}) summary_only->excludes(o);
  cmd->callback(
      [&action, args, command_line] { action = [args, command_line] { return run_schedule(*args, command_line); }; });
}

}  // namespace hetperf::cli
