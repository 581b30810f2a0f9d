// The options of `hetperf schedule` (schedule_args.hpp).
#include "checks.hpp"
#include "hetperf/simulator/batch/schedule.hpp"
#include "schedule_args.hpp"

namespace hetperf::cli {

void add_schedule_options(CLI::App* cmd, ScheduleArgs* args) {
  std::string policies;
  for (const auto& [name, description] : sim::batch::batch_policies()) policies += "\n    " + name + ": " + description;
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
}

}  // namespace hetperf::cli
