// The application jobs' predictions on the console, apart from the simulation that makes them.
//
//   AppPrediction a = apps::predict_app_jobs(platform, profile, jobs, false);
//   apps::print_app_table(a, nullptr, stdout);  // with samples: typical run and 80% interval too
#pragma once

#include <cstdio>

#include "hetperf/apps/sim/app_jobs.hpp"

namespace hetperf::apps {

// One line per job: its name, application, ranks, configuration and predicted time; with `sampled`
// (of the same jobs) the typical run and the 10th and 90th percentiles of its runs.
void print_app_table(const AppPrediction& a, const SampledAppJobs* sampled, std::FILE* os);

}  // namespace hetperf::apps
