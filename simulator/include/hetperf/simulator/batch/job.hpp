// Parallel jobs for the batch scheduler, as the simulator sees them: the workload's jobs
// (hetperf/model/batch_jobs.hpp, read and checked there) and those imported from an SWF trace, which
// become the same structs here; and the sizes a malleable job may be resized to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/model/batch_jobs.hpp"
#include "hetperf/simulator/batch/swf.hpp"

namespace hetperf::sim::batch {

// The model's job types under the names the batch simulator uses.
using JobKind = hetperf::BatchJobKind;
using AppModel = hetperf::BatchAppModel;
using Topology = hetperf::ResizeTopology;
using ResizeSpec = hetperf::ResizeSpec;
using JobSpec = hetperf::BatchJob;
using hetperf::to_string;

// A job skipped before simulation, and why (reported in the output and on stderr, never dropped silently).
struct SkippedJob {
  std::int64_t id = 0;
  std::string name;
  std::string where;
  std::string reason;
};

// The choices a real trace forces on its replay.
struct SwfImportOptions {
  // Which processor count a job needs: the allocated one (field 5, what it ran on; the default, as
  // the run time of field 4 was measured on it) or the requested one (field 8); each falls back to
  // the other when missing.
  enum class Procs { kAllocated, kRequested };
  Procs procs = Procs::kAllocated;
  // A job that ran past its requested time (field 9) is killed at that limit, as real schedulers do
  // (default on); off, it runs its whole recorded time.
  bool kill_at_limit = true;
};
const char* to_string(SwfImportOptions::Procs p);

// What the import did, for the summary.
struct SwfImportSummary {
  std::string procs = "allocated";
  bool kill_at_limit = true;
  std::size_t killed_at_limit = 0;         // jobs whose run was cut to their requested time
  std::size_t without_requested_time = 0;  // jobs without field 9: backfilling sees their exact time
  std::size_t procs_fallback = 0;          // jobs whose chosen count was missing, the other taken
};

// One rigid job per SWF record: submit = field 2, processors = field 5 or 8 (options.procs), run
// time = field 4 (cut at field 9 with options.kill_at_limit), estimate = field 9 when positive.
// Records without a run time or a processor count are returned in `skipped` with the reason.
std::vector<JobSpec> jobs_from_swf(const SwfTrace& trace, std::vector<SkippedJob>& skipped,
                                   const SwfImportOptions& options = {}, SwfImportSummary* summary = nullptr);

// The counts a malleable job may run on, ascending: app-model counts allowed by the topology and
// the limits, and reachable from the initial count.
std::vector<std::int64_t> resize_configurations(const JobSpec& job);

}  // namespace hetperf::sim::batch
