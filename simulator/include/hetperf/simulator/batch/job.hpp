// Parallel jobs for the batch scheduler, as the simulator sees them: the workload's jobs
// (hetperf/model/batch_jobs.hpp, read and checked there) and those imported from an SWF trace, which
// become the same structs here; and the sizes a malleable job may be resized to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/model/batch_jobs.hpp"
#include "hetperf/simulator/batch/swf.hpp"

namespace hetperf::sim::batch {

// The model's job types under the names the batch simulator uses.
using JobKind = hetperf::BatchJobKind;
using AppModel = hetperf::BatchAppModel;
using Topology = hetperf::ResizeTopology;
using ResizeSpec = hetperf::ResizeSpec;
using JobSpec = hetperf::BatchJob;
using hetperf::to_string;

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
