// Comparing two traces operation by operation, ignoring times: a real and a simulated run of the same
// configuration must issue the same operations and messages on every rank.
#pragma once

#include <string>

#include "hetperf/apps/trace_view.hpp"

namespace hetperf::apps {

// Empty when both traces hold the same ranks, each with the same sequence of operations (op,
// iteration, peer, tag, bytes, dimensions); otherwise the first difference, naming the rank and the
// position of the event in both files.
std::string first_difference(const TraceFile& a, const TraceFile& b);

}  // namespace hetperf::apps
