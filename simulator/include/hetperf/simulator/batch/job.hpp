// Parallel jobs for the batch scheduler: rigid (a processor count), moldable (a set of allowed
// counts, chosen at start) and malleable iterative jobs (resized between iterations, ReSHAPE seed
// 002 section 3). Read from a workload's "jobs" array or from an SWF trace; validated once here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/simulator/batch/swf.hpp"

namespace hetperf {
class JsonNode;
}

namespace hetperf::sim::batch {

enum class JobKind { kRigid, kMoldable, kMalleable };
const char* to_string(JobKind kind);

// How long one iteration takes on p unit-speed processors. A tagged object in JSON
// ({"kind": "table", ...}) so that analytic models (LU, integration) can be added as new kinds.
struct AppModel {
  std::string kind = "table";
  std::int64_t iterations = 1;                          // >= 1
  std::map<std::int64_t, double> iteration_time_s;      // processors -> s per iteration, > 0

  bool supports(std::int64_t p) const { return iteration_time_s.count(p) != 0; }
  double time_s(std::int64_t p) const { return iteration_time_s.at(p); }
};

// Which processor counts a malleable job may be resized to (seed 002 section 3.1 and Table 2).
enum class Topology {
  kAny,           // every count of the app model
  kDivides,       // counts dividing problem_size
  kNearlySquare,  // r x c grids, r and c dividing problem_size, grown by adding to the smaller side
};

struct ResizeSpec {
  Topology topology = Topology::kAny;
  std::int64_t problem_size = 0;              // required by kDivides and kNearlySquare
  std::int64_t min_processors = 1;
  std::int64_t max_processors = 0;            // 0: no limit beyond the app model and the cluster
  double data_bytes = 0;                      // global data redistributed at each resize
  std::optional<double> redistribution_s;     // given cost; overrides data_bytes
  // Node-removal policies (applied at resize points under every batch policy):
  std::optional<std::int64_t> remove_after_iteration;  // after this iteration (1-based) ...
  std::int64_t remove_processors = 0;                  // ... give up this many processors
  std::optional<double> min_efficiency;  // shrink to the previous size when an iteration's efficiency,
                                         // T(p0) p0 / (T(p) p) against the first size p0, falls below
};

struct JobSpec {
  std::int64_t id = 0;          // SWF job number, or position in "jobs" + 1
  std::string name;
  std::string where;            // "$.jobs[3]" or "trace.swf:41", for messages
  JobKind kind = JobKind::kRigid;
  double submit_s = 0;
  std::int64_t processors = 0;             // rigid count; malleable initial count; moldable: 0
  std::vector<std::int64_t> allowed;       // moldable: allowed counts, ascending
  std::optional<double> run_time_s;        // rigid: time on unit-speed processors (else from app)
  std::optional<AppModel> app;
  std::optional<double> requested_time_s;  // the user's estimate; absent: the exact time
  ResizeSpec resize;                       // malleable only
  std::optional<std::size_t> swf_record;   // index into the imported trace's records

  // Exact run time on p unit-speed processors without resizing.
  double run_time_at(std::int64_t p) const;
  // What a backfilling scheduler believes: requested_time_s, else the exact time.
  double estimate_at(std::int64_t p) const { return requested_time_s ? *requested_time_s : run_time_at(p); }
  // Counts the job may start with, ascending.
  std::vector<std::int64_t> start_options() const;
};

// Reads and validates `workload.jobs` (an array); `jobs` is the node for "$.jobs".
// Errors name the file and path: "w.json: $.jobs[3].processors: expected an integer in [1, ...], got 0".
std::vector<JobSpec> jobs_from_json(const JsonNode& jobs);
nlohmann::json to_json(const JobSpec& job);

// A job skipped before simulation, and why (reported in the output and on stderr, never dropped silently).
struct SkippedJob {
  std::int64_t id = 0;
  std::string name;
  std::string where;
  std::string reason;
};

// One rigid job per SWF record: submit = field 2, processors = field 5 (else field 8), run time =
// field 4, estimate = field 9 when positive. Records without a run time or a processor count are
// returned in `skipped` with the reason.
std::vector<JobSpec> jobs_from_swf(const SwfTrace& trace, std::vector<SkippedJob>& skipped);

// The counts a malleable job may run on, ascending: app-model counts allowed by the topology and
// the limits, and reachable from the initial count.
std::vector<std::int64_t> resize_configurations(const JobSpec& job);

}  // namespace hetperf::sim::batch
