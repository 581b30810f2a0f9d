// The options of `hetperf predict` as parsed (predict_options.cpp), and the workload's application
// jobs predicted beside its processes (predict_apps.cpp); predict_command.cpp runs the simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "event_rate.hpp"
#include "hetperf/apps/sim/app_jobs.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"

namespace hetperf::cli {

struct PredictArgs {
  std::string platform;
  std::string workload;
  std::string out = "prediction.json";
  std::string csv;
  std::string policy;
  std::int64_t seed = -1;
  std::size_t rows = 20;
  std::size_t timeline_points = 100;
  std::string timeline_csv;
  std::string trace_dir;
  bool summary_only = false;
  double max_memory_mib = 0;  // 0: the memory available
  std::size_t samples = 0;    // 0: the point prediction only
  unsigned threads = 0;       // 0: the machine's cores
};

void add_predict_options(CLI::App* cmd, PredictArgs* args);

// The workload's application jobs: their point predictions (and traces) into `p`, and with --samples
// their distributions. Under mpiexec only rank 0 goes on: false on the others, which gave it their
// samples.
struct AppRuns {
  std::vector<apps::AppJob> jobs;  // what runs' results point to
  std::optional<apps::AppPrediction> runs;
  std::optional<apps::SampledAppJobs> sampled;
};
bool predict_apps(const PredictArgs& args, const Profile& profile, const Workload& workload, const Binding& binding,
                  EventRate& rate, Prediction& p, AppRuns& out);

}  // namespace hetperf::cli
