// The ReSHAPE remap scheduler as a batch policy (private to the simulator; registered as "reshape").
#pragma once

#include <memory>

#include "hetperf/simulator/batch/policy.hpp"

namespace hetperf::sim::batch {

// options: {"queue": "fcfs" | "easy" (default "fcfs"), "min_improvement": fraction (default 0)}.
std::unique_ptr<BatchPolicy> make_reshape_policy(const nlohmann::json& options);

}  // namespace hetperf::sim::batch
