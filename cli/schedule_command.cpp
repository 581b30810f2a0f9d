// `hetperf schedule`: simulate a stream of parallel jobs (a workload's "jobs" or an SWF trace) under a
// batch policy and write each job's wait, turnaround and bounded slowdown, the utilisation over time
// and the processor allocation history, as JSON, CSV, SWF and (optionally) gnuplot pictures.
#include <iostream>
#include <algorithm>
#include <utility>

#include "hetperf/apps/sim/schedule_input.hpp"
#include "checks.hpp"
#include "commands.hpp"
#include "schedule_args.hpp"
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
  CLI::App* cmd = app.add_subcommand(
      "schedule",
      "Simulate parallel jobs (a workload's \"jobs\" or an SWF trace) under a batch policy: per-job wait, "
      "turnaround and bounded slowdown, utilisation, processor allocation history.");
  add_schedule_options(cmd, args.get());
  cmd->callback(
      [&action, args, command_line] { action = [args, command_line] { return run_schedule(*args, command_line); }; });
}

}  // namespace hetperf::cli
