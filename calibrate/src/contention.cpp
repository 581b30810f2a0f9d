// The contention experiments (see contention.hpp).
#include "hetperf/calibrate/contention.hpp"

#include <algorithm>
#include <cstdio>

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

std::string fixed(const char* format, double a, double b, double c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

}  // namespace

std::string ContentionSummary::brief_report() const {
  return fixed("a waiting MPI rank takes %.2f of a core (alone %.4f s, one per core at once %.4f s)", value,
               record["alone_s"].get<double>(), record["one_per_core_s"].get<double>());
}

ContentionSummary measure_waiting_share(const ContentionOptions& o, const ProgramRunner& run) {
  const std::string steps = o.quick ? "4000000" : "8000000";
  auto mean_response = [&](int instances) {
    std::vector<double> v;
    for (int k = 0; k < o.repeats; ++k) {
      auto out = run(1, 2 * instances,
                     {o.integrate_program, "--instances", std::to_string(instances), "--steps", steps, "--scratch", o.scratch});
      v.push_back(summary_number(out.at(0), "mean_response_s"));
    }
    return median_of(v);
  };
  const double t1 = mean_response(1), tc = mean_response(o.cores);
  ContentionSummary s;
  s.figure = "waiting_share";
  s.value = std::clamp(tc / t1 - 1, 0.0, 1.0);
  s.record = {{"steps", std::stoull(steps)}, {"alone_s", t1}, {"one_per_core_s", tc}, {"cores", o.cores},
              {"waiting_share", s.value}};
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
  const std::vector<std::string> args = {o.integrate_program, "--instances", std::to_string(o.cores), "--steps", steps,
                                         "--message-bytes", "32", "--disk-bytes", "0", "--scratch", o.scratch};
  run(apart, args);  // warm-up, discarded
  std::vector<double> alone, shared;
  for (int k = 0; k < o.repeats; ++k) {
    alone.push_back(summary_number(run(apart, args), "mean_response_s"));
    shared.push_back(summary_number(run(together, args), "mean_response_s"));
  }
  const double t1 = median_of(alone), tc = median_of(shared);
  ContentionSummary s;
  s.figure = "waiting_share";
  s.value = std::clamp(tc / t1 - 1, 0.0, 1.0);
  s.record = {{"computer", computer},  {"masters_apart_on", elsewhere}, {"steps", std::stoull(steps)},
              {"alone_s", t1},         {"one_per_core_s", tc},          {"alone_runs_s", alone},
              {"shared_runs_s", shared}, {"cores", o.cores},            {"waiting_share", s.value},
              {"unclamped", tc / t1 - 1}};
  return s;
}

}  // namespace hetperf::calibrate
