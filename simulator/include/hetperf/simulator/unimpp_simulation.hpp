// Event-by-event simulation of UniMPP processes (seed 001 section 2) on the computers of a profile:
// processor sharing among the processes computing on a computer (over its cores), the memory slowdown
// α of the memory they occupy (eq. 3), FIFO disk reads and writes with their waiting times (eq. 4-5),
// messages costing θ + s/b through the computer's network interface, FIFO (eq. 6-7), voluntary delays,
// and the response time SL (eq. 8) with its breakdown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"

namespace hetperf::sim {

struct SimulationOptions {
  std::optional<std::string> placement;  // overrides the workload's policy
  std::optional<std::uint64_t> seed;     // overrides the workload's seed
};

// Runs the workload to completion. InputError (naming the workload file and JSON path) for a process
// pinned to an unknown computer or larger than every computer's main plus virtual memory.
Prediction simulate(const Profile& profile, const Workload& workload, const std::string& workload_file,
                    const SimulationOptions& options = {});

}  // namespace hetperf::sim
