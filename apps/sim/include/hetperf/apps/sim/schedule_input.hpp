// What `hetperf schedule` simulates: the jobs of a workload or an SWF trace, the scheduler's settings
// and the cluster they run on. A workload's application models ("lu", "integrate") become
// iteration-time tables simulated on the profile here, before the schedule.
//
//   ScheduleInputOptions o;
//   o.swf = "trace.swf";
//   o.policy = "easy";
//   ScheduleInput in = read_schedule_input(o);
//   sim::batch::ScheduleResult r = sim::batch::simulate_schedule(in.cluster(), in.jobs, in.options, in.skipped);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetperf/model/profile.hpp"
#include "hetperf/simulator/batch/schedule.hpp"
#include "hetperf/simulator/batch/swf.hpp"

namespace hetperf::apps {

struct ScheduleInputOptions {
  std::string workload;                   // a workload file with "jobs" (and optionally "scheduler"), or
  std::string swf;                        // a Standard Workload Format trace: exactly one of the two
  std::string platform;                   // a profile (optional): the cluster, and what application models run on
  std::string policy;                     // overrides the workload's scheduler.policy (empty: keep it)
  std::int64_t processors = 0;            // overrides the cluster size when positive (no platform)
  bool swf_requested_processors = false;  // SWF field 8 rather than field 5 (each falls back to the other)
  bool kill_at_limit = true;              // SWF: a job past its requested time (field 9) is killed there
};

// The jobs, the scheduler settings, the profile and (for SWF input) the trace they came from.
struct ScheduleInput {
  std::vector<sim::batch::JobSpec> jobs;
  sim::batch::ScheduleOptions options;
  std::vector<sim::batch::SkippedJob> skipped;
  std::optional<Profile> profile;
  std::optional<sim::batch::SwfTrace> trace;
  std::optional<sim::batch::SwfImportSummary> swf_import;

  // The profile's processors, else a homogeneous cluster of options.processors; InputError when
  // neither says how large it is.
  sim::batch::Cluster cluster() const;
};

// Reads and checks the inputs (InputError naming the file and field on any fault).
ScheduleInput read_schedule_input(const ScheduleInputOptions& options);

}  // namespace hetperf::apps
