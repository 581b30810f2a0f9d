// The contention experiments (see contention.hpp).
#include "hetperf/calibrate/contention.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::calibrate {
namespace {

// A number of a program's summary line; EnvironmentError when the program did not print it.
double summary_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains("summary") || !j["summary"].contains(key) || !j["summary"][key].is_number()) {
    throw EnvironmentError(std::string("a program's summary lacks \"") + key + "\": " + j.dump());
  }
  return j["summary"][key].get<double>();
}

double median_of(std::vector<double> v) { return median(v); }

// A launch's workers: the wall time of their integration calls over its CPU time, the inverse of the
// share of a core the scheduler gave them. Unlike a response time it does not change with the
// computer's speed, which drifts between the runs it is compared across.
double wall_over_cpu(const nlohmann::json& j) {
  const double cpu = summary_number(j, "workers_compute_cpu_s"), wall = summary_number(j, "workers_compute_wall_s");
  if (!(cpu > 0) || !(wall > 0)) throw EnvironmentError("a program's summary has no compute time: " + j.dump());
  return wall / cpu;
}

// The figure from the workers' wall / CPU ratios alone and beside the waiting masters, with the former
// estimate from response times kept in the record beside it. Alone, a worker's ratio is its share of
// a free core (1; a capped computer's quota), and whatever else the scheduler runs there only adds to
// it: the least of the runs is taken. Beside the masters the median: the oversubscribed applications
// meet the same disturbances.
ContentionSummary waiting_share(const std::vector<double>& alone_ratios, const std::vector<double>& shared_ratios,
                                double alone_s, double shared_s) {
  const double alone_ratio = *std::min_element(alone_ratios.begin(), alone_ratios.end());
  const double shared_ratio = median_of(shared_ratios);
  ContentionSummary s;
  s.figure = "waiting_share";
  const double unclamped = shared_ratio / alone_ratio - 1;
  s.value = std::clamp(unclamped, 0.0, 1.0);
  s.record = {{"alone_s", alone_s},
              {"one_per_core_s", shared_s},
              {"alone_wall_over_cpu", alone_ratio},
              {"one_per_core_wall_over_cpu", shared_ratio},
              {"alone_runs_wall_over_cpu", alone_ratios},
              {"one_per_core_runs_wall_over_cpu", shared_ratios},
              {"waiting_share", s.value},
              {"unclamped", unclamped},
              {"from_response_times", shared_s / alone_s - 1}};
  return s;
}

}  // namespace

std::string ContentionSummary::brief_report() const {
  char buf[320];
  std::snprintf(
      buf, sizeof buf,
      "a waiting MPI rank takes %.2f of a core (workers' wall / CPU time alone %.3f, one per core at once %.3f; "
      "mean responses %.4f s and %.4f s)",
      value, record["alone_wall_over_cpu"].get<double>(), record["one_per_core_wall_over_cpu"].get<double>(),
      record["alone_s"].get<double>(), record["one_per_core_s"].get<double>());
  return buf;
}

ContentionSummary measure_waiting_share(const ContentionOptions& o, const ProgramRunner& run) {
  const std::string steps = o.quick ? "4000000" : "8000000";
  // The median mean response, and the workers' wall / CPU time of every repeat.
  auto measure = [&](int instances) {
    std::vector<double> response, ratio;
    for (int k = 0; k < o.repeats; ++k) {
      auto out = run(
          1, 2 * instances,
          {o.integrate_program, "--instances", std::to_string(instances), "--steps", steps, "--scratch", o.scratch});
      response.push_back(summary_number(out.at(0), "mean_response_s"));
      ratio.push_back(wall_over_cpu(out.at(0)));
    }
    return std::pair{median_of(response), ratio};
  };
  const auto [t1, r1] = measure(1);
  const auto [tc, rc] = measure(o.cores);
  ContentionSummary s = waiting_share(r1, rc, t1, tc);
  s.record["steps"] = std::stoull(steps);
  s.record["cores"] = o.cores;
  return s;
}

ContentionSummary measure_waiting_share_on(const ContentionOptions& o, const std::string& computer,
                                           const std::string& elsewhere, const PlacedRunner& run) {
  const std::string steps = o.quick ? "1000000" : "2000000";
  std::vector<std::string> apart, together;  // rank 2i is instance i's master, 2i + 1 its worker
  for (int i = 0; i < o.cores; ++i) {
    apart.insert(apart.end(), {elsewhere, computer});
    together.insert(together.end(), {computer, computer});
  }
  const std::vector<std::string> args = {o.integrate_program,
                                         "--instances",
                                         std::to_string(o.cores),
                                         "--steps",
                                         steps,
                                         "--message-bytes",
                                         "32",
                                         "--disk-bytes",
                                         "0",
                                         "--scratch",
                                         o.scratch};
  run(apart, args);  // warm-up, discarded
  std::vector<double> alone, shared, alone_ratio, shared_ratio;
  for (int k = 0; k < o.repeats; ++k) {
    const nlohmann::json a = run(apart, args), t = run(together, args);
    alone.push_back(summary_number(a, "mean_response_s"));
    alone_ratio.push_back(wall_over_cpu(a));
    shared.push_back(summary_number(t, "mean_response_s"));
    shared_ratio.push_back(wall_over_cpu(t));
  }
  ContentionSummary s = waiting_share(alone_ratio, shared_ratio, median_of(alone), median_of(shared));
  s.record["computer"] = computer;
  s.record["masters_apart_on"] = elsewhere;
  s.record["steps"] = std::stoull(steps);
  s.record["alone_runs_s"] = alone;
  s.record["shared_runs_s"] = shared;
  s.record["cores"] = o.cores;
  return s;
}

}  // namespace hetperf::calibrate
