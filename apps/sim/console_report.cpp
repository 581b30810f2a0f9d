// The application jobs' table on the console (console_report.hpp).
#include "hetperf/apps/sim/console_report.hpp"

#include <string>

#include "hetperf/model/statistics.hpp"

namespace hetperf::apps {

void print_app_table(const AppPrediction& a, const SampledAppJobs* sampled, std::FILE* os) {
  std::fprintf(os, "%-20s %-10s %6s %-34s %12s", "application", "app", "ranks", "configuration", "predicted_s");
  // With samples: the typical run (its median, before the model error) and the 80% interval of runs.
  if (sampled) std::fprintf(os, " %12s %12s %12s", "typical_s", "p10_s", "p90_s");
  std::fprintf(os, "\n");
  for (std::size_t index = 0; index < a.jobs.size(); ++index) {
    const auto& r = a.jobs[index];
    const auto& j = *r.job;
    char config[64];
    if (j.kind == AppJob::Kind::kLu) {
      std::snprintf(
          config, sizeof config, "n=%d r=%d %s%s%s%s", j.lu.n, j.lu.r, to_string(j.lu.variant),
          j.lu.parallel_multiply > 1 ? (" pm" + std::to_string(j.lu.parallel_multiply)).c_str() : "",
          j.lu.bcast != LuBcast::kSequential ? (std::string(" ") + to_string(j.lu.bcast)).c_str() : "",
          j.lu.remove ? (" -" + std::to_string(j.lu.remove) + "@" + std::to_string(j.lu.remove_after_iteration)).c_str()
                      : "");
    } else {
      std::snprintf(config, sizeof config, "%d x %d ranks, %llu steps", j.instances, j.ranks,
                    static_cast<unsigned long long>(j.integrate.steps));
    }
    std::fprintf(os, "%-20s %-10s %6d %-34s %12.4f", j.name.c_str(), to_string(j.kind), j.ranks * j.instances, config,
                 r.time_s);
    if (sampled) {
      const auto& s = sampled->time_s[index];
      std::fprintf(os, " %12.4f %12.4f %12.4f", median(sampled->typical_s[index]), quantile_nearest_rank(s, 0.10),
                   quantile_nearest_rank(s, 0.90));
    }
    std::fprintf(os, "\n");
  }
  std::fprintf(os, "(LU: factorisation time; integration: mean response time of its instances)\n");
}

}  // namespace hetperf::apps
