// The batch scheduler's settings: reader and writer of a workload's "scheduler".
#include "hetperf/model/batch_scheduler.hpp"

#include <algorithm>

#include "hetperf/model/json_node.hpp"

namespace hetperf {

BatchSchedulerSpec batch_scheduler_from_json(const JsonNode& n) {
  if (!n.is_object()) n.fail("a scheduler object");
  n.known_fields({"policy", "options", "processors", "slowdown_threshold_s"});
  BatchSchedulerSpec s;
  s.policy = n.string_or("policy", s.policy);
  if (std::find(kBatchPolicies.begin(), kBatchPolicies.end(), s.policy) == kBatchPolicies.end()) {
    std::string known;
    for (auto name : kBatchPolicies) known += (known.empty() ? "" : ", ") + std::string(name);
    n.field("policy").fail("one of " + known);
  }
  if (auto opts = n.optional("options")) {
    if (!opts->is_object()) opts->fail("an object");
    if (s.policy == "reshape") {
      opts->known_fields({"queue", "min_improvement"});
      opts->choice_or("queue", "fcfs", {"fcfs", "easy"});
      opts->number_or("min_improvement", 0, Range::kFraction);
    }
    s.policy_options = opts->value();
  }
  if (n.has("processors")) s.processors = n.integer("processors", 1, 100'000'000);
  s.slowdown_threshold_s = n.number_or("slowdown_threshold_s", s.slowdown_threshold_s, Range::kPositive);
  return s;
}

nlohmann::json to_json(const BatchSchedulerSpec& s) {
  nlohmann::json j = {
      {"policy", s.policy}, {"options", s.policy_options}, {"slowdown_threshold_s", s.slowdown_threshold_s}};
  if (s.processors) j["processors"] = *s.processors;
  return j;
}

}  // namespace hetperf
