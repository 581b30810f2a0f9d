// Simulating a stream of parallel jobs on a cluster under a batch policy, with the per-job wait,
// turnaround and bounded slowdown, the utilisation over time and each job's processor allocation
// history (ReSHAPE paper Figures 4-5). Deterministic: events in (time, sequence) order, no wall clock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/batch_scheduler.hpp"
#include "hetperf/model/csv.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/simulator/batch/cluster.hpp"
#include "hetperf/simulator/batch/job.hpp"
#include "hetperf/simulator/batch/policy.hpp"
#include "hetperf/simulator/batch/swf.hpp"

namespace hetperf {
class JsonNode;
}

namespace hetperf::sim::batch {

inline constexpr int kScheduleSchemaVersion = 1;

// The workload's "scheduler", read and checked by the model (hetperf/model/batch_scheduler.hpp).
using ScheduleOptions = hetperf::BatchSchedulerSpec;

struct AllocationStep {
  double time_s = 0;
  std::int64_t processors = 0;  // held from time_s on (0 after the end)
};

struct JobResult {
  std::int64_t id = 0;
  std::string name;
  JobKind kind = JobKind::kRigid;
  double submit_s = 0;
  double start_s = 0;
  double end_s = 0;
  double wait_s = 0;            // start - submit
  double run_s = 0;             // end - start
  double turnaround_s = 0;      // end - submit
  double bounded_slowdown = 1;  // max(1, turnaround / max(run, τ))
  std::int64_t processors = 0;  // at start
  std::int64_t max_processors = 0;
  double estimate_s = 0;         // the run time the scheduler believed at start
  double slowest_speed = 1;      // of the processors given at start
  double processor_seconds = 0;  // Σ processors x time held
  std::int64_t resizes = 0;
  std::vector<AllocationStep> allocation;
  std::vector<IterationRecord> iterations;  // malleable jobs: the profiler's record
  std::optional<std::size_t> swf_record;
};

struct UtilisationStep {
  double time_s = 0;
  std::int64_t busy = 0;  // processors allocated from time_s on
};

struct ScheduleSummary {
  std::size_t jobs = 0;
  std::size_t skipped = 0;
  double mean_wait_s = 0;
  double mean_turnaround_s = 0;  // turnaround: the job's response time, end - submit
  double mean_bounded_slowdown = 0;
  double max_bounded_slowdown = 0;
  double slowdown_threshold_s = 10;  // τ of the bounded slowdown
  // Median, p90, p99 (nearest rank) and max over the jobs (hetperf::percentiles, exact).
  Percentiles wait_s;
  Percentiles turnaround_s;
  Percentiles bounded_slowdown;
  double first_submit_s = 0;
  double last_end_s = 0;
  double makespan_s = 0;   // last end - first submit
  double utilisation = 0;  // busy processor-seconds / (processors x makespan), in [0, 1]
  std::int64_t resizes = 0;
  std::uint64_t events = 0;
};

struct ScheduleResult {
  std::string policy;
  std::int64_t processors = 0;
  std::vector<JobResult> jobs;      // in input order, skipped jobs left out
  std::vector<SkippedJob> skipped;  // too large for the cluster, or incomplete SWF records
  // What the run did not stop for but the user should know: a malleable job that can never be
  // resized (its allowed sizes leave it where it starts), naming the job.
  std::vector<std::string> warnings;
  std::optional<SwfImportSummary> swf_import;  // how an SWF trace became these jobs
  std::vector<UtilisationStep> utilisation;
  ScheduleSummary summary;
};

// What the simulation keeps and reports as it goes, for runs too large to keep every row.
struct ScheduleOutput {
  // false: ScheduleResult::jobs stays empty and each job's allocation history is dropped once it has
  // finished; the summary is the same as with true.
  bool keep_jobs = true;
  // false: ScheduleResult::utilisation stays empty (2 steps a job at most, 16 bytes each).
  bool keep_utilisation = true;
  // Called with each job as it finishes, in finish order (ties in event order), its result complete,
  // and its index in ScheduleResult::jobs (kept or not).
  std::function<void(const JobResult&, std::size_t index)> on_job;
  // Refuse, before simulating, malleable jobs whose iterations would take more than this many bytes
  // to record; 0: no limit.
  std::uint64_t max_memory_bytes = 0;
  // Bytes per iteration the caller needs beside the record when it writes a finished job's row (its
  // text, built whole), for that refusal.
  std::uint64_t row_bytes_per_iteration = 0;
};

// Runs the jobs to completion. Jobs that cannot run on `cluster` (more processors than it has) are
// listed in `skipped`; `pre_skipped` (from the SWF import) are carried into it. InputError, naming
// the job, for a job whose data must be redistributed without a network model, and, before the first
// event, for a job whose submission, estimate, run on the slowest processors or data moved through
// one link would take more than 1e12 s, or whose iterations' records exceed
// ScheduleOutput::max_memory_bytes.
ScheduleResult simulate_schedule(const Cluster& cluster, const std::vector<JobSpec>& jobs,
                                 const ScheduleOptions& options, std::vector<SkippedJob> pre_skipped = {},
                                 const ScheduleOutput& output = {});

// JSON (schema hetperf.schedule/1) without provenance; the CLI adds command, version and inputs.
nlohmann::json to_json(const ScheduleResult& result);
// One element of its "jobs".
nlohmann::json job_json(const JobResult& r);
// The same element as text, appended to `out` as json_output_text writes it in the document (an
// element of a top-level array; hetperf/model/json_text.hpp), for output that streams the rows.
// InputError naming `file` and $.jobs[index] for a number that is not finite.
void append_job_json_row(std::string& out, const JobResult& r, std::size_t index, const std::string& file);
// One element of "utilisation", the same way ($.utilisation[index]).
void append_utilisation_json_row(std::string& out, const UtilisationStep& u, std::size_t index,
                                 const std::string& file);
// One line per job: id,name,type,submit_s,start_s,end_s,wait_s,run_s,turnaround_s,bounded_slowdown,...
std::string to_csv(const ScheduleResult& result);
// The header line of to_csv, and one job's line, appended to `csv`.
std::string job_csv_header();
void job_csv_row(CsvWriter& csv, const JobResult& r);
// The same lines written as jobs finish (ScheduleOutput::on_job), in finish order, into `file` (an
// OutputSet's, renamed over its target only when every output is complete); flush() writes the rows
// still gathered. Memory: a few thousand rows.
class JobCsvStream {
 public:
  explicit JobCsvStream(AtomicFile& file);
  void add(const JobResult& job);
  void flush();
  std::size_t rows() const { return rows_; }

 private:
  AtomicFile& file_;
  CsvWriter csv_;
  std::size_t rows_ = 0;
};
// One line per processor-count change of every job: id,name,time_s,processors.
std::string allocation_csv(const ScheduleResult& result);
// The simulated schedule as SWF: submit, wait, run, processors at start, requested processors and
// time, status 1; fields the simulation does not produce are copied from `source` when the jobs came
// from it, else -1. The header keeps the source's comments and records the policy and cluster size.
SwfTrace to_swf(const ScheduleResult& result, const SwfTrace* source);
// The gnuplot data and script of the allocation history of the first `plot_jobs` jobs (ReSHAPE paper
// Figures 4a/5a) and of the busy processors over time (Figures 4b/5b): allocation.dat, busy.dat and
// plots.gp, which draws allocation.png and busy.png from them. Pairs of file name and text.
std::vector<std::pair<std::string, std::string>> schedule_plot_files(const ScheduleResult& result,
                                                                     std::size_t plot_jobs);

}  // namespace hetperf::sim::batch
