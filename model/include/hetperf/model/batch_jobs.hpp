// Parallel jobs for the batch scheduler (a workload's "jobs", docs/scheduling.md): rigid (a processor
// count), moldable (a set of allowed counts, chosen at start) and malleable iterative jobs (resized
// between iterations, ReSHAPE ReSHAPE paper section 3). Read and checked once here; the SWF importer
// (simulator/batch/job.hpp) produces the same structs, and the batch simulator runs them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/app_jobs_spec.hpp"

namespace hetperf {

class JsonNode;

enum class BatchJobKind { kRigid, kMoldable, kMalleable };
const char* to_string(BatchJobKind kind);  // "rigid", "moldable", "malleable"

// How long one iteration takes on p unit-speed processors ("app", a tagged object).
struct BatchAppModel {
  enum class Kind {
    kTable,      // "table": the times are given
    kLu,         // "lu": one iteration is one block-LU factorisation ...
    kIntegrate,  // "integrate": ... or one integration, whose steps the P − 1 workers share;
                 // `hetperf schedule --platform` simulates them into the table (hetperf/apps/sim/app_jobs.hpp)
  };
  Kind kind = Kind::kTable;     // "kind" (required)
  std::int64_t iterations = 1;  // "iterations", >= 1; default 1
  // "iteration_time_s" (kTable, at least one entry): processors (>= 1) -> s per iteration (> 0). kLu
  // and kIntegrate: empty until tabulated.
  std::map<std::int64_t, double> iteration_time_s;
  LuSpec lu;                // kLu: "n", "r", "variant", "window" (no removal)
  IntegrateSpec integrate;  // kIntegrate: "steps" (required: all workers together), "message_bytes",
                            // "disk_bytes"; a and b keep their defaults

  bool supports(std::int64_t p) const { return iteration_time_s.count(p) != 0; }
  double time_s(std::int64_t p) const { return iteration_time_s.at(p); }
};

// Which processor counts a malleable job may be resized to (ReSHAPE paper section 3.1 and Table 2).
enum class ResizeTopology {
  kAny,           // "any" (default): every count of the app model
  kDivides,       // "divides": counts dividing problem_size
  kNearlySquare,  // "nearly_square": r x c grids, r and c dividing problem_size, grown by adding to the smaller side
};

// "resize" of a malleable job; every member optional.
struct ResizeSpec {
  ResizeTopology topology = ResizeTopology::kAny;  // "topology"
  std::int64_t problem_size = 0;                   // "problem_size": >= 1, required by kDivides and kNearlySquare
  std::int64_t min_processors = 1;                 // "min_processors": smallest size, >= 1; default 1
  std::int64_t max_processors = 0;                 // "max_processors": largest size, >= the initial count; 0 (default):
                                                   // no limit beyond the app model and the cluster
  // "data_bytes": global data redistributed at each resize, bytes, >= 0. Default 0, except for an
  // "lu" app model without "redistribution_s": its matrix, 8 n² bytes (8-byte doubles).
  double data_bytes = 0;
  std::optional<double> redistribution_s;  // "redistribution_s": a given cost, s, >= 0; overrides data_bytes
  // "redistribution_cost": {"latency_s": l (>= 0), "bandwidth_bytes_per_s": b (> 0)}: this job's own
  // t = l + s/b for its data_bytes, in place of the platform's network (a fit of measured
  // redistributions, e.g. ReSHAPE paper Figure 3a). Absent: the platform's network model.
  std::optional<double> redistribution_latency_s;
  std::optional<double> redistribution_bandwidth_bytes_per_s;
  // "remove": {"after_iteration": I (>= 1), "processors": K (>= 1)}: node removal, applied at resize
  // points under every batch policy.
  std::optional<std::int64_t> remove_after_iteration;
  std::int64_t remove_processors = 0;
  // "min_efficiency", in [0, 1]: shrink to the previous size when an iteration's efficiency,
  // T(p0) p0 / (T(p) p) against the first size p0, falls below it.
  std::optional<double> min_efficiency;
};

struct BatchJob {
  std::int64_t id = 0;                       // position in "jobs" + 1, or the SWF job number
  std::string name;                          // "name"; default "job-<id>"
  std::string where;                         // "w.json: $.jobs[3]" or "trace.swf:41", for messages
  BatchJobKind kind = BatchJobKind::kRigid;  // "type": "rigid" (default), "moldable", "malleable"
  double submit_s = 0;                       // "submit_s", s, >= 0; default 0
  std::int64_t processors = 0;               // "processors": rigid count; malleable initial count; moldable: 0
  std::vector<std::int64_t> allowed;         // moldable "processors": the allowed counts, ascending, distinct
  std::optional<double> run_time_s;          // "run_time_s", s, >= 0: rigid only, on unit-speed processors
                                             // (else the time comes from app)
  std::optional<BatchAppModel> app;          // "app": required by moldable and malleable jobs
  std::optional<double> requested_time_s;    // "requested_time_s", s, > 0: the user's estimate; absent: the exact time
  ResizeSpec resize;                         // malleable only
  std::optional<std::size_t> swf_record;     // index into the imported trace's records

  // Exact run time on p unit-speed processors without resizing.
  double run_time_at(std::int64_t p) const;
  // What a backfilling scheduler believes: requested_time_s, else the exact time.
  double estimate_at(std::int64_t p) const { return requested_time_s ? *requested_time_s : run_time_at(p); }
  // Counts the job may start with, ascending.
  std::vector<std::int64_t> start_options() const;
};

// Reads and checks a workload's "jobs" (`jobs` at $.jobs, at least one job). Errors name the file
// and path: "w.json: $.jobs[3].processors: expected a processor count (an integer in [1, ...]), got 0".
// A job whose app model is a table must start with counts of the table; one with an "lu" or
// "integrate" model is checked by check_tabulated_counts once the table is made.
std::vector<BatchJob> batch_jobs_from_json(const JsonNode& jobs);
// The job as the workload holds it (no "id"), every field written, defaults included.
nlohmann::json to_json(const BatchJob& job);

// After an "lu" or "integrate" app model is tabulated: every count the job may start with must be in
// the table, else InputError naming the job's "processors".
void check_tabulated_counts(const BatchJob& job);

}  // namespace hetperf
