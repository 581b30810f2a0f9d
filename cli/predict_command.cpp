// `hetperf predict`: simulate a workload on a platform profile and write the predicted response times.
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/apps/mpi/sample_split.hpp"
#include "checks.hpp"
#include "commands.hpp"
#include "event_rate.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/json_text.hpp"
#include "hetperf/model/row_spool.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/simulator/placement.hpp"
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

constexpr const char* kProcessCsvHeader =
    "name,computer,arrival_s,start_s,finish_s,response_s,cpu_s,memory_s,disk_s,network_s,sleep_s,waiting_s,"
    "migration_s,migrations";

void csv_row(CsvWriter& csv, const ProcessResult& r) {
  const auto& b = r.breakdown;
  csv << r.name << r.computer << r.arrival_s << r.start_s << r.finish_s << r.response_s << b.cpu_s << b.memory_s
      << b.disk_s << b.network_s << b.sleep_s << b.waiting_s << b.migration_s
      << (r.segments.empty() ? std::size_t{0} : r.segments.size() - 1);
  csv.end_row();
}

// One row per computer and timeline point: when, how busy, how much memory held.
std::string timeline_csv(const Prediction& p) {
  CsvWriter csv("computer,from_s,to_s,utilisation,memory_mb");
  for (const auto& c : p.computers) {
    const auto& t = c.timeline;
    for (std::size_t k = 0; k < t.utilisation.size(); ++k) {
      csv << c.name << static_cast<double>(k) * t.interval_s << static_cast<double>(k + 1) * t.interval_s
          << t.utilisation[k] << t.memory_mb[k];
      csv.end_row();
    }
  }
  return csv.str();
}

void print_apps(const apps::AppPrediction& a, const apps::SampledAppJobs* sampled) {
  std::printf("%-20s %-10s %6s %-34s %12s", "application", "app", "ranks", "configuration", "predicted_s");
  // With samples: the typical run (its median, before the model error) and the 80% interval of runs.
  if (sampled) std::printf(" %12s %12s %12s", "typical_s", "p10_s", "p90_s");
  std::printf("\n");
  for (std::size_t index = 0; index < a.jobs.size(); ++index) {
    const auto& r = a.jobs[index];
    const auto& j = *r.job;
    char config[64];
    if (j.kind == apps::AppJob::Kind::kLu) {
      std::snprintf(
          config, sizeof config, "n=%d r=%d %s%s%s%s", j.lu.n, j.lu.r, apps::to_string(j.lu.variant),
          j.lu.parallel_multiply > 1 ? (" pm" + std::to_string(j.lu.parallel_multiply)).c_str() : "",
          j.lu.bcast != LuBcast::kSequential ? (std::string(" ") + apps::to_string(j.lu.bcast)).c_str() : "",
          j.lu.remove ? (" -" + std::to_string(j.lu.remove) + "@" + std::to_string(j.lu.remove_after_iteration)).c_str()
                      : "");
    } else {
      std::snprintf(config, sizeof config, "%d x %d ranks, %llu steps", j.instances, j.ranks,
                    static_cast<unsigned long long>(j.integrate.steps));
    }
    std::printf("%-20s %-10s %6d %-34s %12.4f", j.name.c_str(), apps::to_string(j.kind), j.ranks * j.instances, config,
                r.time_s);
    if (sampled) {
      const auto& s = sampled->time_s[index];
      std::printf(" %12.4f %12.4f %12.4f", median(sampled->typical_s[index]), quantile_nearest_rank(s, 0.10),
                  quantile_nearest_rank(s, 0.90));
    }
    std::printf("\n");
  }
  std::printf("(LU: factorisation time; integration: mean response time of its instances)\n");
}

// `first`: the first `rows` processes in definition order (or all) of the `listed` in the output files.
void print_table(const Prediction& p, const std::vector<ProcessResult>& first, std::size_t listed, std::size_t rows) {
  std::printf("%-16s %-14s %10s %10s %10s %9s %9s %9s %9s %9s\n", "process", "computer", "arrival_s", "finish_s",
              "response_s", "cpu_s", "memory_s", "disk_s", "net_s", "wait_s");
  for (const auto& r : first) {
    const auto& b = r.breakdown;
    std::printf("%-16s %-14s %10.4f %10.4f %10.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", r.name.c_str(), r.computer.c_str(),
                r.arrival_s, r.finish_s, r.response_s, b.cpu_s, b.memory_s, b.disk_s, b.network_s, b.waiting_s);
  }
  if (listed > rows) std::printf("... %zu more processes (all of them are in the output files)\n", listed - rows);
  std::printf("\n%-16s %10s %11s %14s %10s\n", "computer", "processes", "utilisation", "peak_memory_mb", "busy_s");
  std::size_t shown = 0;
  for (const auto& c : p.computers) {
    if (shown++ == rows) {
      std::printf("... %zu more computers\n", p.computers.size() - rows);
      break;
    }
    std::printf("%-16s %10zu %11.3f %14.1f %10.4f\n", c.name.c_str(), c.processes, c.utilisation, c.peak_memory_mb,
                c.busy_s);
  }
  const auto& s = p.summary;
  std::printf(
      "\n%zu processes, placement %s, seed %llu: mean response %.4f s, median %.4f s, p95 %.4f s, makespan %.4f s",
      s.processes, p.placement.c_str(), static_cast<unsigned long long>(p.seed), s.mean_response_s, s.median_response_s,
      s.p95_response_s, s.makespan_s);
  if (s.migrations > 0) std::printf(", %llu migrations", static_cast<unsigned long long>(s.migrations));
  std::printf(" (%llu events)\n", static_cast<unsigned long long>(s.events));
}

// Each process's rows as it finishes (sim::SimulationOptions::on_process). With --summary-only the CSV
// gets them in finish order, straight into its temporary file. Otherwise the JSON and the CSV list them
// in definition order: they go to spools beside their files (finish order), copied in order at the end,
// and the first few are kept for the table on stdout.
class ProcessRows {
 public:
  ProcessRows(const PredictArgs& args, AtomicFile& out, AtomicFile* csv) : args_(args), out_(out), csv_(csv) {
    if (csv) {
      csv_rows_.emplace(kProcessCsvHeader);
      csv->write(csv_rows_->take());  // the header
    }
    if (!args.summary_only) {
      json_spool_.emplace(out);
      if (csv) csv_spool_.emplace(*csv);
    }
  }

  void add(const ProcessResult& r, std::uint64_t index) {
    if (json_spool_) {
      row_.assign(json_array_separator(index));
      append_process_json_row(row_, r, index, args_.out);
      json_spool_->add(index, row_);
      if (index < args_.rows) {
        if (first_.size() <= index) first_.resize(index + 1);
        first_[index] = r;
      }
    }
    if (csv_rows_) {
      csv_row(*csv_rows_, r);
      if (csv_spool_)
        csv_spool_->add(index, csv_rows_->take());
      else if (++streamed_ % 4096 == 0)
        csv_->write(csv_rows_->take());
    }
  }

  // The JSON document around the spooled rows, and the CSV's rows.
  void finish(const Prediction& p) {
    if (json_spool_) {
      // The document around the rows, cut where they go.
      const std::vector<std::string> pieces = split_json_output(to_json(p), {"processes"}, args_.out);
      out_.write(pieces[0]);
      json_spool_->copy_to(out_);
      out_.write(json_array_close(json_spool_->rows()));
      out_.write(pieces[1]);
    } else {
      out_.write(json_output_text(to_json(p), args_.out));
    }
    if (csv_spool_)
      csv_spool_->copy_to(*csv_);
    else if (csv_)
      csv_->write(csv_rows_->take());
  }

  const std::vector<ProcessResult>& first() const { return first_; }
  bool listed() const { return json_spool_.has_value(); }

 private:
  const PredictArgs& args_;
  AtomicFile& out_;
  AtomicFile* csv_;
  std::optional<CsvWriter> csv_rows_;
  std::optional<RowSpool> json_spool_, csv_spool_;
  std::vector<ProcessResult> first_;
  std::string row_;
  std::uint64_t streamed_ = 0;
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
void report(const Prediction& p, const Profile& profile, const ProcessRows& rows, const AppRuns& apps_run,
            const PredictArgs& args) {
  if ((rows.listed() && p.summary.processes > 0) || !apps_run.runs)
    print_table(p, rows.first(), rows.listed() ? p.summary.processes : 0, args.rows);
  if (apps_run.runs) print_apps(*apps_run.runs, apps_run.sampled ? &*apps_run.sampled : nullptr);
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
  ProcessRows rows(args, out, csv_file);
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
  if (timeline_file) timeline_file->write(timeline_csv(p));
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
