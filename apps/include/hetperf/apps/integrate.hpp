// Master/worker numerical integration of 2·sin x + e^x over [a, b] with the trapezium rule (UniMPP paper
// section 4, eq. 10): the master sends each worker its sub-interval, the worker computes its steps,
// writes its bytes to disk and returns its partial sum. Written once against Runtime.
#pragma once

#include <cstdint>
#include <string>

#include "hetperf/apps/runtime.hpp"
#include "hetperf/apps/task.hpp"

namespace hetperf::apps {

struct IntegrateConfig {
  double a = 0, b = 1;
  std::uint64_t steps = 10'000'000;  // trapezium steps per worker
  std::uint64_t message_bytes = 32;  // size of each master<->worker message (at least 16)
  std::uint64_t disk_bytes = 0;      // bytes each worker writes to disk

  std::string validate(int ranks) const;
};

struct IntegrateResult {
  double integral = 0;    // on the master: the sum of the workers' parts
  double response_s = 0;  // on the master: from its first send to its last receive
};

// Closed form: ∫ 2 sin x + e^x dx from a to b = 2(cos a − cos b) + e^b − e^a.
double integral_closed_form(double a, double b);
// The trapezium rule itself (used by the real back-end).
double trapezium(double a, double b, std::uint64_t steps);

// Rank 0 is the master, ranks 1 .. size-1 the workers.
Task integrate_rank(Runtime& rt, const IntegrateConfig& config, IntegrateResult& result);

}  // namespace hetperf::apps
