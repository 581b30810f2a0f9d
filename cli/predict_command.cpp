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
  cmd->callback([&action, args, command_line] {
    action = [args, command_line] {
      Profile profile = read_profile(args->platform);
      Workload workload = read_workload(args->workload);
      Binding binding = bind(workload, profile);
      sim::SimulationOptions options;
      if (!args->policy.empty()) options.placement = args->policy;
      if (args->seed >= 0) options.seed = static_cast<std::uint64_t>(args->seed);
      options.timeline_points = args->timeline_points;
      // Rows are written as processes finish, not kept: the JSON's and CSV's spools take 12 bytes a
      // process each beside the simulation's own memory.
      options.keep_processes = false;
      options.output_bytes_per_process = args->summary_only ? 0 : 24;
      if (args->max_memory_mib > 0)
        options.max_memory_bytes = static_cast<std::uint64_t>(args->max_memory_mib * (1 << 20));
      else if (auto available = available_memory_bytes())
        options.max_memory_bytes = *available;
      // Every output is claimed before the simulation (a target that cannot be written is refused before
      // any work), written into its temporary file, and renamed only once all of them are complete.
      OutputSet outputs;
      AtomicFile& out = outputs.add(args->out, "--out");
      AtomicFile* csv_file = args->csv.empty() ? nullptr : &outputs.add(args->csv, "--csv");
      AtomicFile* timeline_file =
          args->timeline_csv.empty() ? nullptr : &outputs.add(args->timeline_csv, "--timeline-csv");
      // Each process's rows are written as it finishes. With --summary-only the CSV gets them in finish
      // order, straight into its temporary file. Otherwise the JSON and the CSV list them in definition
      // order: they go to spools beside their files (finish order), copied in order at the end, and the
      // first few are kept for the table on stdout.
      std::optional<CsvWriter> csv_rows;
      if (csv_file) {
        csv_rows.emplace(kProcessCsvHeader);
        csv_file->write(csv_rows->take());  // the header
      }
      std::optional<RowSpool> json_spool, csv_spool;
      if (!args->summary_only) {
        json_spool.emplace(out);
        if (csv_file) csv_spool.emplace(*csv_file);
      }
      std::vector<ProcessResult> first_rows;
      std::string row;
      std::uint64_t streamed = 0;
      options.on_process = [&](const ProcessResult& r, std::uint64_t index) {
        if (json_spool) {
          row.assign(json_array_separator(index));
          append_process_json_row(row, r, index, args->out);
          json_spool->add(index, row);
          if (index < args->rows) {
            if (first_rows.size() <= index) first_rows.resize(index + 1);
            first_rows[index] = r;
          }
        }
        if (csv_rows) {
          csv_row(*csv_rows, r);
          if (csv_spool)
            csv_spool->add(index, csv_rows->take());
          else if (++streamed % 4096 == 0)
            csv_file->write(csv_rows->take());
        }
      };
      EventRate rate;
      rate.start();
      Prediction p = sim::simulate(profile, workload, binding, args->workload, options);
      rate.stop();
      p.command = command_line;
      p.platform_file = args->platform;
      std::optional<apps::AppPrediction> app_runs;
      std::optional<apps::SampledAppJobs> sampled_jobs;
      std::vector<apps::AppJob> jobs;
      if (!workload.apps.empty()) {
        jobs = apps::app_jobs(workload, binding);
        apps::SimPlatform platform = apps::sim_platform_from_profile(profile);
        rate.start();
        app_runs = apps::predict_app_jobs(platform, profile, jobs, !args->trace_dir.empty());
        rate.stop();
        p.summary.events += app_runs->events;  // the summary counts every simulation's events, apps included
        for (const auto& r : app_runs->jobs) p.apps.push_back(r.json);
        std::set<std::string> model_warnings = *platform.model_warnings;
        if (args->samples > 0) {
          const std::uint64_t seed = p.seed;
          apps::SplitSamples split = apps::sample_app_jobs_split(profile, jobs, args->samples, seed, args->threads);
          // Under mpiexec, rank 0 alone writes and prints; the other ranks gave it their samples.
          if (!split.root) return 0;
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
          sampled_jobs = std::move(sampled);
        }
        for (const auto& w : model_warnings) p.warnings.push_back(w);
      } else if (args->samples > 0) {
        throw InputError(args->workload +
                         ": $.apps: missing: --samples predicts the distributions of application jobs");
      } else if (!args->trace_dir.empty()) {
        throw InputError(args->workload + ": $.apps: missing: --trace-dir needs application jobs in \"apps\"");
      }
      std::size_t traces = 0;
      if (app_runs && !args->trace_dir.empty()) {
        for (const auto& r : app_runs->jobs) {
          outputs.write(std::filesystem::path(args->trace_dir) / (r.job->name + ".trace.json"), r.trace.dump(1) + "\n",
                        "--trace-dir");
          ++traces;
        }
      }
      if (json_spool) {
        // The document around the rows, cut where they go.
        const std::vector<std::string> pieces = split_json_output(to_json(p), {"processes"}, args->out);
        out.write(pieces[0]);
        json_spool->copy_to(out);
        out.write(json_array_close(json_spool->rows()));
        out.write(pieces[1]);
      } else {
        out.write(json_output_text(to_json(p), args->out));
      }
      if (csv_spool)
        csv_spool->copy_to(*csv_file);
      else if (csv_file)
        csv_file->write(csv_rows->take());
      if (timeline_file) timeline_file->write(timeline_csv(p));
      outputs.commit();
      if ((json_spool && p.summary.processes > 0) || !app_runs)
        print_table(p, first_rows, json_spool ? p.summary.processes : 0, args->rows);
      if (app_runs) print_apps(*app_runs, sampled_jobs ? &*sampled_jobs : nullptr);
      for (const auto& w : profile.warnings) std::cerr << "hetperf predict: profile warning: " << w << "\n";
      for (const auto& w : p.warnings) std::cerr << "hetperf predict: warning: " << w << "\n";
      rate.report("predict", p.summary.events);
      // Which memory slowdown the simulation applied (UniMPP paper eq. 3), once per form.
      std::map<std::string, std::size_t> slowdown_forms;
      for (const Computer& c : profile.computers) {
        if (c.slowdown) ++slowdown_forms[c.slowdown->form()];
      }
      for (const auto& [form, n] : slowdown_forms) {
        std::cerr << "hetperf predict: memory slowdown α: " << form << " on " << n << " computer(s)\n";
      }
      std::cout << "wrote " << args->out << (args->csv.empty() ? "" : ", " + args->csv)
                << (args->timeline_csv.empty() ? "" : ", " + args->timeline_csv)
                << (traces == 0 ? "" : ", " + std::to_string(traces) + " traces in " + args->trace_dir) << "\n";
      return 0;
    };
  });
}

}  // namespace hetperf::cli
