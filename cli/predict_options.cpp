// The options of `hetperf predict` (predict_args.hpp).
#include "checks.hpp"
#include "hetperf/simulator/placement.hpp"
#include "predict_args.hpp"

namespace hetperf::cli {

void add_predict_options(CLI::App* cmd, PredictArgs* args) {
  std::string policies;
  for (const auto& [name, description] : sim::placement_policies()) policies += "\n    " + name + ": " + description;
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
}

}  // namespace hetperf::cli
