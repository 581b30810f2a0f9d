// The workload's application jobs in `hetperf predict`: their point predictions, traces and
// distributions (predict_args.hpp).
#include <set>
#include <utility>

#include "hetperf/apps/mpi/sample_split.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"
#include "predict_args.hpp"

namespace hetperf::cli {

bool predict_apps(const PredictArgs& args, const Profile& profile, const Workload& workload, const Binding& binding,
                  EventRate& rate, Prediction& p, AppRuns& out) {
  if (workload.apps.empty()) {
    if (args.samples > 0)
      throw InputError(args.workload + ": $.apps: missing: --samples predicts the distributions of application jobs");
    if (!args.trace_dir.empty())
      throw InputError(args.workload + ": $.apps: missing: --trace-dir needs application jobs in \"apps\"");
    return true;
  }
  out.jobs = apps::app_jobs(workload, binding);
  const std::vector<apps::AppJob>& jobs = out.jobs;
  apps::SimPlatform platform = apps::sim_platform_from_profile(profile);
  rate.start();
  out.runs = apps::predict_app_jobs(platform, profile, jobs, !args.trace_dir.empty());
  rate.stop();
  p.summary.events += out.runs->events;  // the summary counts every simulation's events, apps included
  for (const auto& r : out.runs->jobs) p.apps.push_back(r.json);
  std::set<std::string> model_warnings = *platform.model_warnings;
  if (args.samples > 0) {
    const std::uint64_t seed = p.seed;
    apps::SplitSamples split = apps::sample_app_jobs_split(profile, jobs, args.samples, seed, args.threads);
    if (!split.root) return false;
    apps::SampledAppJobs sampled = std::move(split.samples);
    model_warnings.insert(sampled.warnings.begin(), sampled.warnings.end());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      nlohmann::json d = apps::distribution_json(sampled.time_s[j]);
      d["typical"] = median(sampled.typical_s[j]);
      d["seed"] = seed;
      if (!sampled.process_response_s[j].empty()) {
        d["processes"] = nlohmann::json::array();
        for (const auto& s : sampled.process_response_s[j]) d["processes"].push_back(apps::distribution_json(s));
      }
      p.apps[j]["distribution"] = d;
    }
    out.sampled = std::move(sampled);
  }
  for (const auto& w : model_warnings) p.warnings.push_back(w);
  return true;
}

}  // namespace hetperf::cli
