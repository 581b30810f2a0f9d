#include "hetperf/apps/sim/schedule_input.hpp"

#include <cstdio>
#include <utility>

#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/workload.hpp"

namespace hetperf::apps {
namespace {

namespace batch = hetperf::sim::batch;

// A workload's jobs, their application models made iteration-time tables on the profile.
void read_workload_jobs(const ScheduleInputOptions& o, ScheduleInput& in) {
  Workload w = read_workload(o.workload);
  if (w.jobs.empty()) throw InputError(o.workload + ": $.jobs: missing: `hetperf schedule` needs a \"jobs\" array");
  if (in.profile) bind(w, *in.profile);
  double tabulated = 0;  // simulated operations of the tables so far
  for (batch::JobSpec& job : w.jobs) {
    if (!job.app || job.app->kind == BatchAppModel::Kind::kTable) continue;
    if (!in.profile) {
      throw InputError(job.where + ".app.kind: \"" + (job.app->kind == BatchAppModel::Kind::kLu ? "lu" : "integrate") +
                       "\" needs a --platform profile to simulate the application on (or use \"table\")");
    }
    std::int64_t cores = 0;
    for (const auto& c : in.profile->computers) cores += c.cores;
    // Every table is simulated before the schedule: all of them within what one run may simulate.
    tabulated += app_model_table_operations(*job.app, *in.profile, cores);
    if (tabulated > kMaxLuSimulatedOperations) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "%s.app: expected application models whose tables (every processor count "
                    "up to the %lld cores) take at most %.0e simulated operations in all; they would take %.1e "
                    "(a larger r, or a \"table\")",
                    job.where.c_str(), static_cast<long long>(cores), kMaxLuSimulatedOperations, tabulated);
      throw InputError(text);
    }
    job.app->iteration_time_s = app_model_as_table(*job.app, *in.profile, cores);
    check_tabulated_counts(job);
  }
  in.jobs = std::move(w.jobs);
  if (w.scheduler) in.options = *w.scheduler;
}

}  // namespace

ScheduleInput read_schedule_input(const ScheduleInputOptions& o) {
  if (o.workload.empty() == o.swf.empty()) throw InputError("give exactly one of --workload and --swf");
  ScheduleInput in;
  if (!o.platform.empty()) in.profile = read_profile(o.platform);
  if (!o.workload.empty()) {
    read_workload_jobs(o, in);
  } else {
    in.trace = batch::read_swf(o.swf);
    batch::SwfImportOptions import;
    import.procs = o.swf_requested_processors ? batch::SwfImportOptions::Procs::kRequested
                                              : batch::SwfImportOptions::Procs::kAllocated;
    import.kill_at_limit = o.kill_at_limit;
    in.swf_import.emplace();
    in.jobs = batch::jobs_from_swf(*in.trace, in.skipped, import, &*in.swf_import);
    in.options.processors = in.trace->cluster_size();
  }
  if (!o.policy.empty()) in.options.policy = o.policy;
  if (o.processors > 0) in.options.processors = o.processors;
  return in;
}

sim::batch::Cluster ScheduleInput::cluster() const {
  if (profile) return batch::Cluster::from_profile(*profile);
  if (!options.processors) {
    throw InputError(
        "no cluster size: give --processors N, a --platform profile, \"scheduler.processors\" in the "
        "workload, or an SWF trace with a MaxProcs or MaxNodes header");
  }
  return batch::Cluster::homogeneous(*options.processors);
}

}  // namespace hetperf::apps
