// Batch scheduling policies: which queued jobs start now, and (for resizing policies) what a
// malleable job does at a resize point. A policy is one class registered by name, like placement.hpp;
// the workload's "scheduler.policy" or `--policy` chooses it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/simulator/batch/availability_profile.hpp"
#include "hetperf/simulator/batch/waiting_queue.hpp"

namespace hetperf::sim::batch {

// What a policy sees when it decides. Running jobs appear only through their planned releases.
struct SchedulerView {
  double now_s = 0;
  std::int64_t total = 0;               // processors in the cluster
  std::int64_t free = 0;                // idle now
  const WaitingQueue* queue = nullptr;  // waiting jobs, in submit order
  // Estimated end -> processors freed then, one entry per running job. An end already passed (a job
  // running past its estimate) stands for "now".
  const std::multimap<double, std::int64_t>* releases = nullptr;
  // false when, since this policy's previous select(), nothing changed but arrivals and the starts
  // it chose: no job ended, resized or moved its estimated end. A policy may then keep the plan it
  // made then (conservative backfilling keeps its reservations).
  bool releases_changed = true;
};

struct StartDecision {
  std::size_t position = 0;     // the job's slot in the queue
  std::int64_t processors = 0;  // one of the job's options
};

// The Performance Profiler of ReSHAPE (ReSHAPE paper section 3.1) for one malleable job: the sizes it has
// run on and its iteration and redistribution times there.
struct IterationRecord {
  std::int64_t iteration = 0;  // 1-based
  std::int64_t processors = 0;
  double start_s = 0;
  double iteration_time_s = 0;  // measured, on the processors actually held
  double redistribution_s = 0;  // paid before this iteration (0 when no resize)
};

struct JobProfile {
  std::map<std::int64_t, double> iteration_time_s;                           // size -> latest iteration time
  std::map<std::pair<std::int64_t, std::int64_t>, double> redistribution_s;  // (from, to) -> latest cost
  std::vector<IterationRecord> history;
  std::int64_t start_processors = 0;
  std::optional<std::int64_t> expanded_from;  // set when the last resize was an expansion (from this size)
  std::optional<std::int64_t> sweet_spot;     // no expansion beyond this size once found
};

// What another running malleable job could give up at its next resize point: the Performance
// Profiler's list of shrink points (ReSHAPE paper section 3.1).
struct ShrinkPoint {
  double next_resize_s = 0;   // when it next checks in (its end when its next iteration is the last)
  std::int64_t can_free = 0;  // processors it could release then: down to its smallest earlier size, or
                              // all it holds when it ends
};

// A malleable job between two iterations.
struct ResizePoint {
  double now_s = 0;
  std::size_t job = 0;
  std::int64_t iteration = 0;                                 // iterations completed (>= 1)
  std::int64_t remaining = 0;                                 // iterations left (>= 1)
  std::int64_t processors = 0;                                // held now
  const std::vector<std::int64_t>* configurations = nullptr;  // sizes it may run on, ascending
  std::int64_t free = 0;                                      // idle processors
  std::int64_t releasing = 0;                                 // processors other jobs are shrinking away from (freed
                                                              // when their redistribution ends)
  std::int64_t queued = 0;                                    // jobs waiting
  std::int64_t queued_need = 0;                               // processors the first waiting job needs (0: none)
  double next_resize_s = 0;                                   // this job's next resize point if it stays at its size
  const std::vector<ShrinkPoint>* others = nullptr;           // the other running malleable jobs
  JobProfile* profile = nullptr;                              // the policy may record a sweet spot
};

class BatchPolicy {
 public:
  virtual ~BatchPolicy() = default;
  // Appends the queued jobs to start now, in the order they start. Called after every change.
  virtual void select(const SchedulerView& view, std::vector<StartDecision>& starts) = 0;
  // The size to continue with (== point.processors: no change). Static policies never resize.
  virtual std::int64_t resize(const ResizePoint& point) { return point.processors; }
};

using BatchPolicyFactory = std::function<std::unique_ptr<BatchPolicy>(const nlohmann::json& options)>;

bool register_batch_policy(const std::string& name, const std::string& description, BatchPolicyFactory factory);
// Removes a policy a test registered for its own length (a reference implementation to compare with).
void unregister_batch_policy(const std::string& name);
// InputError listing the known names when there is none called `name`.
std::unique_ptr<BatchPolicy> make_batch_policy(const std::string& name, const nlohmann::json& options);
std::vector<std::pair<std::string, std::string>> batch_policies();

}  // namespace hetperf::sim::batch
