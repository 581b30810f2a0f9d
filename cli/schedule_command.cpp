// `hetperf schedule`: simulate a stream of parallel jobs (a workload's "jobs" or an SWF trace) under a
// batch policy and write each job's wait, turnaround and bounded slowdown, the utilisation over time
// and the processor allocation history, as JSON, CSV, SWF and (optionally) gnuplot pictures.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "checks.hpp"
#include "commands.hpp"
#include "event_rate.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/gnuplot.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/json_text.hpp"
#include "hetperf/model/process.hpp"
#include "hetperf/model/row_spool.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/simulator/batch/schedule.hpp"

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

// The jobs, the scheduler settings, the --platform profile and (for SWF input) the trace they came from.
struct Input {
  std::vector<batch::JobSpec> jobs;
  batch::ScheduleOptions options;
  std::vector<batch::SkippedJob> skipped;
  std::optional<Profile> profile;
  std::optional<batch::SwfTrace> trace;
  std::optional<batch::SwfImportSummary> swf_import;
};

Input read_input(const ScheduleArgs& args) {
  Input in;
  if (!args.platform.empty()) in.profile = read_profile(args.platform);
  if (!args.workload.empty()) {
    Workload w = read_workload(args.workload);
    if (w.jobs.empty())
      throw InputError(args.workload + ": $.jobs: missing: `hetperf schedule` needs a \"jobs\" array");
    if (in.profile) bind(w, *in.profile);
    // Application models ("lu", "integrate") become iteration-time tables simulated on the profile.
    double tabulated = 0;  // simulated operations of the tables so far
    for (batch::JobSpec& job : w.jobs) {
      if (!job.app || job.app->kind == BatchAppModel::Kind::kTable) continue;
      if (!in.profile) {
        throw InputError(job.where + ".app.kind: \"" +
                         (job.app->kind == BatchAppModel::Kind::kLu ? "lu" : "integrate") +
                         "\" needs a --platform profile to simulate the application on (or use \"table\")");
      }
      std::int64_t cores = 0;
      for (const auto& c : in.profile->computers) cores += c.cores;
      // Every table is simulated before the schedule: all of them within what one run may simulate.
      tabulated += apps::app_model_table_operations(*job.app, *in.profile, cores);
      if (tabulated > kMaxLuSimulatedOperations) {
        char text[256];
        std::snprintf(text, sizeof text,
                      "%s.app: expected application models whose tables (every processor count "
                      "up to the %lld cores) take at most %.0e simulated operations in all; they would take %.1e "
                      "(a larger r, or a \"table\")",
                      job.where.c_str(), static_cast<long long>(cores), kMaxLuSimulatedOperations, tabulated);
        throw InputError(text);
      }
      job.app->iteration_time_s = apps::app_model_as_table(*job.app, *in.profile, cores);
      check_tabulated_counts(job);
    }
    in.jobs = std::move(w.jobs);
    if (w.scheduler) in.options = *w.scheduler;
  } else {
    in.trace = batch::read_swf(args.swf);
    batch::SwfImportOptions o;
    o.procs = args.swf_procs == "requested" ? batch::SwfImportOptions::Procs::kRequested
                                            : batch::SwfImportOptions::Procs::kAllocated;
    o.kill_at_limit = args.kill_at_limit;
    in.swf_import.emplace();
    in.jobs = batch::jobs_from_swf(*in.trace, in.skipped, o, &*in.swf_import);
    in.options.processors = in.trace->cluster_size();
  }
  if (!args.policy.empty()) in.options.policy = args.policy;
  if (args.processors > 0) in.options.processors = args.processors;
  return in;
}

batch::Cluster make_cluster(const Input& in) {
  if (in.profile) return batch::Cluster::from_profile(*in.profile);
  if (!in.options.processors) {
    throw InputError(
        "no cluster size: give --processors N, a --platform profile, \"scheduler.processors\" in the "
        "workload, or an SWF trace with a MaxProcs or MaxNodes header");
  }
  return batch::Cluster::homogeneous(*in.options.processors);
}

void print_jobs(const std::vector<batch::JobResult>& first, std::size_t listed, std::size_t rows);

// `first`: the first `rows` jobs (or all) of the `listed` in the output files.
void print_table(const batch::ScheduleResult& r, const std::vector<batch::JobResult>& first, std::size_t listed,
                 std::size_t rows) {
  if (listed > 0) print_jobs(first, listed, rows);
  const auto& s = r.summary;
  std::printf(
      "\n%zu jobs on %lld processors, policy %s: mean wait %.1f s, mean turnaround %.1f s, mean bounded "
      "slowdown %.2f, makespan %.1f s, utilisation %.1f%%, %lld resizes\n",
      s.jobs, static_cast<long long>(r.processors), r.policy.c_str(), s.mean_wait_s, s.mean_turnaround_s,
      s.mean_bounded_slowdown, s.makespan_s, 100 * s.utilisation, static_cast<long long>(s.resizes));
  std::printf("%-17s %12s %12s %12s %12s\n", "", "median", "p90", "p99", "max");
  for (const auto& [name, p] : {std::pair{"wait_s", s.wait_s}, std::pair{"turnaround_s", s.turnaround_s},
                                std::pair{"bounded_slowdown", s.bounded_slowdown}}) {
    std::printf("%-17s %12.1f %12.1f %12.1f %12.1f\n", name, p.median, p.p90, p.p99, p.max);
  }
}

void print_jobs(const std::vector<batch::JobResult>& first, std::size_t listed, std::size_t rows) {
  std::printf("%-16s %-9s %10s %10s %10s %10s %12s %8s %5s %4s\n", "job", "type", "submit_s", "start_s", "end_s",
              "wait_s", "turnaround_s", "bsld", "procs", "rsz");
  for (const auto& j : first) {
    std::printf("%-16s %-9s %10.1f %10.1f %10.1f %10.1f %12.1f %8.2f %5lld %4lld\n", j.name.c_str(),
                batch::to_string(j.kind), j.submit_s, j.start_s, j.end_s, j.wait_s, j.turnaround_s, j.bounded_slowdown,
                static_cast<long long>(j.processors), static_cast<long long>(j.resizes));
  }
  if (listed > rows) std::printf("... %zu more jobs (all of them are in the output files)\n", listed - rows);
}

// Data files and a gnuplot script for the allocation history of the first `plot_jobs` jobs (ReSHAPE paper
// Figures 4a/5a) and the busy processors over time (Figures 4b/5b), added to `outputs`; the PNGs too
// when gnuplot is installed, drawn in a scratch directory so that they join the set. Returns what to
// tell the user once the set is written.
std::string add_plots(const batch::ScheduleResult& r, const std::string& dir, std::size_t plot_jobs,
                      OutputSet& outputs) {
  std::string alloc, busy = "# time_s busy_processors\n";
  std::size_t n = std::min(plot_jobs, r.jobs.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& j = r.jobs[i];
    alloc += "\"" + j.name + "\"\n";
    for (const auto& a : j.allocation) alloc += csv_number(a.time_s) + " " + std::to_string(a.processors) + "\n";
    alloc += "\n\n";
  }
  for (const auto& u : r.utilisation) busy += csv_number(u.time_s) + " " + std::to_string(u.busy) + "\n";
  GnuplotScript script;
  script.comment("Generated by hetperf schedule; run `gnuplot plots.gp` in this directory.")
          .terminal("pngcairo", 900, 500)
      << "set xlabel 'time (s)'\nset ylabel 'processors'\nset key outside right\nset grid\n";
  script.output("allocation.png") << "set title 'Processor allocation history (" << r.policy << ")'\n"
                                  << "plot for [i=0:" << (n == 0 ? 0 : n - 1)
                                  << "] 'allocation.dat' index i using 1:2 with steps lw 2 title columnheader(1)\n";
  script.output("busy.png") << "set title 'Busy processors (" << r.policy << ", " << r.processors << " in all)'\n"
                            << "set yrange [0:" << r.processors << "]\n"
                            << "plot 'busy.dat' using 1:2 with steps lw 2 notitle\n";
  const std::filesystem::path d(dir);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"allocation.dat", alloc}, {"busy.dat", busy}, {"plots.gp", script.text()}};
  for (const auto& [name, text] : files) outputs.write(d / name, text, "--plot-dir");
  if (!find_on_path("gnuplot"))
    return "pictures skipped: gnuplot is not installed (data and script are in " + dir + ")";
  ScratchDir scratch("hetperf-plots");
  for (const auto& [name, text] : files) write_file_atomic(scratch.path() / name, text);
  try {
    run_gnuplot("plots.gp", scratch.path());
  } catch (const EnvironmentError& e) {
    return std::string("pictures skipped: ") + e.what();
  }
  for (const char* png : {"allocation.png", "busy.png"}) {
    outputs.write(d / png, read_text_file(scratch.path() / png), "--plot-dir");
  }
  return "wrote " + dir + "/allocation.png and " + dir + "/busy.png";
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
  cmd->callback([&action, args, command_line] {
    action = [args, command_line] {
      if (args->workload.empty() == args->swf.empty()) throw InputError("give exactly one of --workload and --swf");
      Input in = read_input(*args);
      batch::Cluster cluster = make_cluster(in);
      // Every output is claimed before the simulation (a target that cannot be written is refused before
      // any work), written into its temporary file, and renamed only once all of them are complete.
      OutputSet outputs;
      AtomicFile& out = outputs.add(args->out, "--out");
      AtomicFile* csv = args->csv.empty() ? nullptr : &outputs.add(args->csv, "--csv");
      AtomicFile* alloc =
          args->allocation_csv.empty() ? nullptr : &outputs.add(args->allocation_csv, "--allocation-csv");
      AtomicFile* swf_out = args->swf_out.empty() ? nullptr : &outputs.add(args->swf_out, "--swf-out");
      // Each job's rows are written as it finishes. With --summary-only the CSV gets them in finish
      // order, straight into its temporary file. Otherwise the JSON and the CSV list them in input
      // order: they go to spools beside their files (finish order), copied in order at the end, and the
      // first few are kept for the table on stdout. The jobs themselves are kept only for the outputs
      // that need every job's allocation history.
      batch::ScheduleOutput output;
      output.keep_jobs = swf_out || alloc || !args->plot_dir.empty();
      output.keep_utilisation = !args->summary_only;
      if (auto available = available_memory_bytes()) output.max_memory_bytes = *available;
      // A malleable job's row holds every iteration: about 200 bytes of text each, in a string that
      // may have doubled past it.
      if (!args->summary_only) output.row_bytes_per_iteration = 512;
      std::optional<batch::JobCsvStream> csv_stream;
      std::optional<RowSpool> json_spool, csv_spool;
      std::optional<CsvWriter> csv_rows;
      if (args->summary_only) {
        if (csv) csv_stream.emplace(*csv);
      } else {
        json_spool.emplace(out);
        if (csv) {
          csv_spool.emplace(*csv);
          csv_rows.emplace(batch::job_csv_header());
          csv->write(csv_rows->take());  // the header
        }
      }
      std::vector<batch::JobResult> first_rows;
      std::string row;
      output.on_job = [&](const batch::JobResult& job, std::size_t index) {
        if (csv_stream) csv_stream->add(job);
        if (!json_spool) return;
        row.assign(json_array_separator(index));
        batch::append_job_json_row(row, job, index, args->out);
        json_spool->add(index, row);
        if (csv_spool) {
          batch::job_csv_row(*csv_rows, job);
          csv_spool->add(index, csv_rows->take());
        }
        if (index < args->rows) {
          if (first_rows.size() <= index) first_rows.resize(index + 1);
          first_rows[index] = job;
          first_rows[index].allocation = {};  // the table shows none of these
          first_rows[index].iterations = {};
        }
      };
      EventRate rate;
      rate.start();
      batch::ScheduleResult r = batch::simulate_schedule(cluster, in.jobs, in.options, std::move(in.skipped), output);
      rate.stop();
      r.swf_import = in.swf_import;
      // No host facts or clock time: the same inputs give byte-identical output.
      nlohmann::json j = {{"hetperf_version", kVersion},
                          {"command", command_line},
                          {"inputs", {{"workload", args->workload}, {"swf", args->swf}, {"platform", args->platform}}}};
      if (json_spool) {
        // The document around the rows (jobs and utilisation set aside while it is made), cut where
        // they go.
        std::vector<batch::JobResult> jobs = std::move(r.jobs);
        std::vector<batch::UtilisationStep> utilisation = std::move(r.utilisation);
        r.jobs.clear();
        r.utilisation.clear();
        j.update(batch::to_json(r));
        r.jobs = std::move(jobs);
        r.utilisation = std::move(utilisation);
        const std::vector<std::string> pieces = split_json_output(j, {"jobs", "utilisation"}, args->out);
        out.write(pieces[0]);
        json_spool->copy_to(out);
        out.write(json_array_close(json_spool->rows()));
        out.write(pieces[1]);
        std::string steps;
        for (std::size_t k = 0; k < r.utilisation.size(); ++k) {
          steps += json_array_separator(k);
          batch::append_utilisation_json_row(steps, r.utilisation[k], k, args->out);
          if (steps.size() >= (1u << 20)) out.write(std::exchange(steps, std::string()));
        }
        out.write(steps);
        out.write(json_array_close(r.utilisation.size()));
        out.write(pieces[2]);
      } else {
        j.update(batch::to_json(r));
        out.write(json_output_text(j, args->out));
      }
      if (csv_stream) csv_stream->flush();
      if (csv_spool) csv_spool->copy_to(*csv);
      if (alloc) alloc->write(batch::allocation_csv(r));
      if (swf_out) swf_out->write(batch::format_swf(batch::to_swf(r, in.trace ? &*in.trace : nullptr)));
      const std::string plots = args->plot_dir.empty() ? "" : add_plots(r, args->plot_dir, args->plot_jobs, outputs);
      outputs.commit();
      print_table(r, first_rows, json_spool ? json_spool->rows() : 0, args->rows);
      // The first few on stderr; all of them are in the JSON output's "skipped".
      const std::size_t shown = std::min<std::size_t>(r.skipped.size(), 10);
      for (std::size_t i = 0; i < shown; ++i) {
        const auto& s = r.skipped[i];
        std::cerr << "hetperf schedule: warning: skipped job " << s.id << " (" << s.where << "): " << s.reason << "\n";
      }
      if (r.skipped.size() > shown) {
        std::cerr << "hetperf schedule: warning: " << r.skipped.size() - shown << " more jobs skipped (listed under "
                  << "\"skipped\" in " << args->out << ")\n";
      }
      for (const auto& w : r.warnings) std::cerr << "hetperf schedule: warning: " << w << "\n";
      rate.report("schedule", r.summary.events);
      if (!plots.empty()) std::cout << plots << "\n";
      std::cout << "wrote " << args->out;
      for (const auto* f : {&args->csv, &args->allocation_csv, &args->swf_out}) {
        if (!f->empty()) std::cout << ", " << *f;
      }
      std::cout << "\n";
      return 0;
    };
  });
}

}  // namespace hetperf::cli
