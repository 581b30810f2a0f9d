// ReSHAPE's Remap Scheduler (ReSHAPE paper section 3.1), deciding at each resize point of a malleable job
// from the Performance Profiler's record of its iteration times:
//  - shrink back to the previous size when the last expansion did not improve the iteration time
//    (the sweet spot is then the previous size: section 4.1.1);
//  - when a job waits, shrink to the largest earlier size that frees enough processors for it (with
//    those idle and those other jobs are already releasing), or to the smallest earlier size when none
//    does ("applications can only shrink to processor configurations on which they have previously
//    run") -- unless, by the Profiler's list of shrink points, another job checks in before this one
//    next does and can free the whole need by itself: shrinking now would free processors nobody
//    uses (ReSHAPE paper section 5: shrink "while minimizing the negative impact on any one job");
//  - expand to the next allowed size when processors are idle, no job waits, and the last expansion
//    helped or none was tried.
#include "batch/reshape.hpp"

#include <algorithm>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf::sim::batch {
namespace {

class Reshape final : public BatchPolicy {
 public:
  Reshape(std::unique_ptr<BatchPolicy> queue, double min_improvement)
      : queue_(std::move(queue)), min_improvement_(min_improvement) {}

  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override { queue_->select(view, starts); }

  std::int64_t resize(const ResizePoint& point) override {
    JobProfile& prof = *point.profile;
    const std::int64_t p = point.processors;
    const double t_now = prof.iteration_time_s.at(p);
    bool helped = true;
    if (prof.expanded_from) {
      const std::int64_t q = *prof.expanded_from;
      helped = t_now < prof.iteration_time_s.at(q) * (1 - min_improvement_);
      if (!helped) {
        prof.sweet_spot = q;
        return q;
      }
    }
    if (point.queued > 0) {
      // Processors another job is already shrinking away from will be there too: counting them keeps
      // two jobs from shrinking for one waiting job (ReSHAPE paper section 3.1 frees what the queue needs).
      std::int64_t need = point.queued_need - point.free - point.releasing;
      if (need <= 0) return p;
      // Earlier sizes below p, largest first.
      for (auto it = prof.iteration_time_s.rbegin(); it != prof.iteration_time_s.rend(); ++it) {
        if (it->first < p && p - it->first >= need) return it->first;
      }
      std::int64_t smallest = prof.iteration_time_s.begin()->first;
      if (smallest >= p) return p;
      if (point.others) {
        for (const ShrinkPoint& other : *point.others) {
          if (other.next_resize_s < point.next_resize_s && other.can_free >= need) return p;
        }
      }
      return smallest;
    }
    if (point.free > 0) {
      const auto& cfg = *point.configurations;
      auto next = std::upper_bound(cfg.begin(), cfg.end(), p);
      if (next != cfg.end() && *next - p <= point.free && !(prof.sweet_spot && *next > *prof.sweet_spot)) {
        return *next;
      }
    }
    return p;
  }

 private:
  std::unique_ptr<BatchPolicy> queue_;
  double min_improvement_;
};

}  // namespace

std::unique_ptr<BatchPolicy> make_reshape_policy(const nlohmann::json& options) {
  JsonNode n(options, "scheduler", "$.scheduler.options");
  if (!n.is_object()) n.fail("an object");
  n.known_fields({"queue", "min_improvement"});
  std::string queue = n.choice_or("queue", "fcfs", {"fcfs", "easy"});
  double min_improvement = n.number_or("min_improvement", 0, Range::kFraction);
  return std::make_unique<Reshape>(make_batch_policy(queue, nlohmann::json::object()), min_improvement);
}

}  // namespace hetperf::sim::batch
