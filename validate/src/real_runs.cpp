// The real runs of a validation (see real_runs.hpp).
#include "hetperf/validate/real_runs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/validate/run_order.hpp"
#include "clock.hpp"
#include "text.hpp"

namespace hetperf::validate {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double summary_number(const nlohmann::json& j, const char* key) {
  if (!j.contains("summary") || !j["summary"].contains(key) || !j["summary"][key].is_number()) {
    throw EnvironmentError(std::string("validate: a program's summary lacks \"") + key + "\": " + j.dump());
  }
  return j["summary"][key].get<double>();
}

// The runs in progress: what ran, how long each configuration's runs took.
class RealRuns {
 public:
  RealRuns(const RealRunsPlan& plan, std::vector<ValidationRun>& runs, const std::vector<CalibrationRun>& cal,
           const Launch& launch)
      : plan_(plan), runs_(runs), cal_(cal), launch_(launch), wall_s_(runs.size(), 0.0), done_(cal.size(), 0) {}

  // Run k of the numbering of run_order: below runs.size() a validated configuration, from it on a
  // calibration configuration. `step` names its place in the order ("[3/120] "), or is empty;
  // `further`: a further round's run, whose time counts against the budget (RealRunsTime::further_s).
  void run(std::size_t k, const std::string& step, bool further) {
    probes::throw_if_interrupted();
    const auto start = Clock::now();
    if (k >= runs_.size()) {
      calibrate_once(k - runs_.size());
      const double s = seconds_since(start);
      time_.calibration_s += s;
      if (further) time_.further_s += s;
      std::fprintf(stderr, "  %s%-40s (calibration, traced)\n", step.c_str(), cal_[k - runs_.size()].id.c_str());
      return;
    }
    measure(k);
    const double s = seconds_since(start);
    time_.validation_s += s;
    wall_s_[k] += s;
    if (further) time_.further_s += s;
    std::fprintf(stderr, "  %s%-40s measured %9.4f s\n", step.c_str(), runs_[k].id.c_str(),
                 runs_[k].measured_samples_s.back());
  }

  // Mean wall seconds of a run of every validated configuration so far (launch included).
  std::vector<double> seconds_per_run() const {
    std::vector<double> out(runs_.size(), 0.0);
    for (std::size_t k = 0; k < runs_.size(); ++k) {
      const auto n = runs_[k].measured_samples_s.size();
      out[k] = n > 0 ? wall_s_[k] / static_cast<double>(n) : 0.0;
    }
    return out;
  }

  const RealRunsTime& time() const { return time_; }

 private:
  // One real run of validated configuration k.
  void measure(std::size_t k) {
    auto& r = runs_[k];
    const bool lu = r.job.kind == apps::AppJob::Kind::kLu;
    std::vector<std::string> args = r.arguments;
    const fs::path trace = plan_.scratch / "trace.json";
    const bool first = r.measured_samples_s.empty();
    if (r.group == "lu-removal" && first) args.insert(args.end(), {"--trace", trace.string()});
    nlohmann::json j = launch_(r.ranks, args, r.hosts);
    r.measured_samples_s.push_back(summary_number(j, lu ? "factorization_s" : "mean_response_s"));
    if (r.group == "lu-removal" && first) {
      r.measured_iterations = read_json_file(trace)["iterations"];
      fs::remove(trace);
    }
  }

  // One traced run of calibration configuration c.
  void calibrate_once(std::size_t c) {
    const fs::path trace = plan_.trace_dir / (cal_[c].id + "-" + std::to_string(++done_[c]) + ".json");
    std::vector<std::string> args = cal_[c].arguments;
    args.insert(args.end(), {"--trace", trace.string()});
    launch_(cal_[c].ranks, args, cal_[c].hosts);
    time_.traces.push_back(trace);
  }

  const RealRunsPlan& plan_;
  std::vector<ValidationRun>& runs_;
  const std::vector<CalibrationRun>& cal_;
  const Launch& launch_;
  std::vector<double> wall_s_;  // of every validated configuration's runs
  std::vector<int> done_;       // traced runs of every calibration configuration
  RealRunsTime time_;
};

}  // namespace

RealRunsTime run_real_runs(const RealRunsPlan& plan, std::vector<ValidationRun>& runs,
                           const std::vector<CalibrationRun>& cal, const Launch& launch) {
  RealRuns real(plan, runs, cal, launch);
  if (runs.empty()) return {};
  std::vector<int> repeats(runs.size(), plan.repeat);
  repeats.insert(repeats.end(), cal.size(), plan.calibration_repeat);
  const std::vector<std::size_t> order = run_order(repeats, plan.seed);
  std::fprintf(stderr,
               "validate: %zu runs (%zu configurations x %d, and %zu calibration configurations x %d, traced) "
               "in a seeded random order (seed %llu), after one warm-up run\n",
               order.size(), runs.size(), plan.repeat, cal.size(), plan.calibration_repeat,
               static_cast<unsigned long long>(plan.seed));
  launch(runs.front().ranks, runs.front().arguments,
         runs.front().hosts);  // warm-up: caches, page tables, the launcher's files
  std::size_t step = 0;
  for (std::size_t k : order) {
    real.run(k, "[" + std::to_string(++step) + "/" + std::to_string(order.size()) + "] ", false);
  }
  // Further rounds over the configurations whose median is not yet known to ±median_precision,
  // with calibration runs of their apps in the order's proportion between them.
  std::vector<std::string> validated_apps, calibration_apps;
  for (const auto& r : runs) validated_apps.push_back(to_string(r.job.kind));
  for (const auto& c : cal)
    calibration_apps.push_back(c.arguments.front() == plan.integrate_program ? "integrate" : "lu");
  const bool budgeted = plan.further_budget_s > 0;
  const double& further_s = real.time().further_s;  // so far
  for (int round = plan.repeat; round < plan.max_repeat; ++round) {
    std::vector<std::size_t> wide = imprecise_medians(runs, plan.median_precision);
    const std::size_t imprecise = wide.size();
    // What is left, spread evenly over the rounds left: a first round over every imprecise
    // configuration would spend it all, where the cheapest could have had every round.
    if (budgeted)
      wide = affordable(wide, real.seconds_per_run(), (plan.further_budget_s - further_s) / (plan.max_repeat - round));
    if (wide.empty()) {
      if (imprecise > 0)
        std::fprintf(stderr,
                     "validate: further runs stop: %zu medians imprecise, none of whose runs fits in this round's "
                     "share of the %.0f s left of the budget\n",
                     imprecise, std::max(0.0, plan.further_budget_s - further_s));
      break;
    }
    std::fprintf(stderr,
                 "validate: run %d of at most %d for %zu of the %zu configurations whose median's 95%% interval "
                 "is wider than ±%s\n",
                 round + 1, plan.max_repeat, wide.size(), imprecise, text::percent(plan.median_precision).c_str());
    for (std::size_t k : further_round(validated_apps, wide, calibration_apps, plan.repeat, plan.calibration_repeat,
                                       plan.seed + static_cast<std::uint64_t>(round))) {
      if (budgeted && further_s >= plan.further_budget_s) break;
      real.run(k, "", true);
    }
  }
  RealRunsTime time = real.time();
  std::sort(time.traces.begin(), time.traces.end());
  return time;
}

}  // namespace hetperf::validate
