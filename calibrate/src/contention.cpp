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
  if (figure == "waiting_share") {
    return fixed("a waiting MPI rank takes %.2f of a core (alone %.4f s, one per core at once %.4f s)", value,
                 record["alone_s"].get<double>(), record["one_per_core_s"].get<double>());
  }
  if (figure == "core_efficiency") {
    return fixed("LU kernels on all cores at once run at %.2f of their speed alone (%.4f s against %.4f s)", value,
                 record["all_cores_s"].get<double>(), record["alone_s"].get<double>());
  }
  return fixed("a message into an oversubscribed computer waits %.3f ms more (%.4f s measured, %.4f s simulated without)",
               1e3 * value, record["measured_s"].get<double>(), record["simulated_without_s"].get<double>());
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

ContentionSummary measure_core_efficiency(const ContentionOptions& o, const ProgramRunner& run) {
  const std::vector<std::string> lu = {o.lu_program, "--n", "1280", "--r", "128"};
  std::vector<double> alone, together;
  for (int k = 0; k < o.repeats; ++k) {
    alone.push_back(summary_number(run(1, 1, lu).at(0), "factorization_s"));
    auto all = run(o.cores, 1, lu);
    double sum = 0;
    for (const auto& j : all) sum += summary_number(j, "factorization_s");
    together.push_back(sum / static_cast<double>(all.size()));
  }
  const double t1 = median_of(alone), tc = median_of(together);
  ContentionSummary s;
  s.figure = "core_efficiency";
  s.value = std::clamp(t1 / tc, 0.05, 1.0);
  s.record = {{"n", 1280}, {"r", 128}, {"alone_s", t1}, {"all_cores_s", tc}, {"cores", o.cores}, {"core_efficiency", s.value}};
  return s;
}

ContentionSummary measure_handoff(const ContentionOptions& o, const ProgramRunner& run,
                                  const std::function<double(int, int, int, double)>& simulate) {
  const int ranks = 2 * o.cores, n = 768, r = 32;
  std::vector<double> v;
  for (int k = 0; k < o.repeats; ++k) {
    auto out = run(1, ranks, {o.lu_program, "--n", std::to_string(n), "--r", std::to_string(r), "--variant", "basic"});
    v.push_back(summary_number(out.at(0), "factorization_s"));
  }
  const double measured = median_of(v);
  const double t0 = simulate(ranks, n, r, 0), t1 = simulate(ranks, n, r, 1e-3);
  ContentionSummary s;
  s.figure = "handoff_s";
  s.value = t1 > t0 ? std::max(0.0, (measured - t0) / (t1 - t0) * 1e-3) : 0;
  s.record = {{"ranks", ranks}, {"n", n}, {"r", r}, {"measured_s", measured}, {"simulated_without_s", t0},
              {"simulated_with_1ms_s", t1}, {"handoff_s", s.value}};
  return s;
}

}  // namespace hetperf::calibrate
