// The batch scheduler's settings (a workload's "scheduler", docs/scheduling.md): the batch policy,
// its options, the cluster size when no platform is given, and τ of the bounded slowdown.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hetperf {

class JsonNode;

// The batch policies a workload may name, sorted; the simulator registers one class under each
// (simulator/batch/policy.hpp; a test keeps the two lists equal).
inline constexpr std::array<std::string_view, 4> kBatchPolicies = {"conservative", "easy", "fcfs", "reshape"};

struct BatchSchedulerSpec {
  std::string policy = "fcfs";  // "policy": one of kBatchPolicies; default "fcfs" (`--policy` overrides)
  // "options": policy settings, an object; default {}. "reshape": "queue" ("fcfs" default, or "easy":
  // how queued jobs start) and "min_improvement" (in [0, 1], default 0: the fraction by which an
  // expansion must cut the iteration time to count as helping). Checked here, handed to the policy.
  nlohmann::json policy_options = nlohmann::json::object();
  std::optional<std::int64_t> processors;  // "processors": cluster size when no platform is given, >= 1
  double slowdown_threshold_s = 10;        // "slowdown_threshold_s": τ of the bounded slowdown, s, > 0; default 10
};

// Reads the workload's "scheduler" object (`scheduler` at $.scheduler). InputError names the field:
// "w.json: $.scheduler.policy: expected one of conservative, easy, fcfs, reshape, got the string \"sjf\"".
BatchSchedulerSpec batch_scheduler_from_json(const JsonNode& scheduler);
// Every field written ("processors" when given); batch_scheduler_from_json reads it back equal.
nlohmann::json to_json(const BatchSchedulerSpec& s);

}  // namespace hetperf
