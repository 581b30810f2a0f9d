// Application jobs in a workload ("apps"): real LU and integration runs given by their options and a
// rank-to-computer mapping, predicted with the simulated back-end on a platform profile. The workload
// reader (hetperf/model/app_jobs_spec.hpp) checks the jobs and bind() (hetperf/model/bind.hpp)
// resolves their computers against the profile; here they become runs of the applications. The kernel
// times come from the profile's calibrated kernel models (see sim_platform_from_profile).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/apps/integrate.hpp"
#include "hetperf/apps/lu.hpp"
#include "hetperf/model/batch_jobs.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/apps/sim/sim_runtime.hpp"

namespace hetperf::apps {

// One application run, ready to simulate.
struct AppJob {
  std::string name;
  std::string json_path;  // "$.apps[2]" (empty when not from a workload)
  enum class Kind { kLu, kIntegrate } kind = Kind::kLu;
  LuConfig lu;
  IntegrateConfig integrate;
  int instances = 1;                 // integrate: independent instances, each with `ranks` ranks
  int ranks = 2;                     // LU: ranks; integrate: ranks per instance (master + workers)
  std::vector<std::size_t> mapping;  // computer of every rank (all instances, in order)
  double start_s = 0;
};
// The application's name: "lu" or "integrate".
inline const char* to_string(AppJob::Kind kind) { return kind == AppJob::Kind::kLu ? "lu" : "integrate"; }

// The run of a workload's application job with its ranks on `mapping` (computer indices, from bind).
AppJob app_job(const AppJobSpec& spec, std::vector<std::size_t> mapping);
// Every application job of a bound workload (binding = bind(workload, profile)), in workload order.
std::vector<AppJob> app_jobs(const Workload& workload, const Binding& binding);

// The kernel models of one computer and the time of one kernel call from them (docs/apps.md).
// T(r) is a calibrated model t(r) = Σ c_p r^p (never below zero); T_lu(r) its counterpart timed at the
// block LU's shapes in a matrix of R rows (probe --lu-rows R), when the profile has it:
//   gemm (m x n x k):  per k x k block column, linear in m through T(k) at m = k and T_lu(k) at
//                      m = R − k; without T_lu, T(k) · m / k (operation count); times n / k
//   getrf (m x n):     linear in m through T(n) at m = n and T_lu(n) at m = R; without T_lu,
//                      T(n) · (m n² − n³/3) / (2n³/3)
//   trsm (m x n):      T_lu(m) (else T(m)) · n / m
//   laswp (n cols, k): T_lu(k) (else T(k)) · n / k
//   integrate:         steps · integration_step_s
struct KernelModels {
  std::optional<KernelModel> gemm, trsm, getrf, laswp;              // compact r x r blocks (rows 0)
  std::optional<KernelModel> gemm_lu, trsm_lu, getrf_lu, laswp_lu;  // the LU's shapes (rows R > 0)
  double integration_step_s = 0;

  static KernelModels of(const Computer& computer);
  // Seconds of one call; a model the call needs must be present.
  double time_s(const KernelCall& call) const;
};

// The simulated platform of a profile: cores, disk write throughput, network l + s/b, and per computer
// KernelModels, the profile's figures as they are (no figure is made up: a missing one is an error
// below or in bind()). For jobs of a bound workload, whose computers bind() checked.
SimPlatform sim_platform_from_profile(const Profile& profile);
// The platform of sample `sample` of a sampled prediction seeded `seed`: on a computer with
// trace-calibrated models (Computer::app_models) every compute operation's time is drawn: the
// calibration runs' state factors of one run drawn per computer, then ε per call
// (hetperf/model/app_model.hpp). Everything else as in the point prediction.
SimPlatform sampled_platform(const Profile& profile, std::uint64_t seed, std::uint64_t sample);
// The same for jobs that were not bound: `needed` lists the profile figures the jobs use ("dgemm",
// "dtrsm", "dgetrf", "dlaswp", "integration", "disk_write"); every computer must have them (a kernel
// model in either shape), and the network a bandwidth, else InputError naming `profile_file` and the field.
SimPlatform sim_platform_from_profile(const Profile& profile, const std::string& profile_file,
                                      const std::vector<std::string>& needed);

// The profile figures the jobs need, for the overload above: the LU's kernels, "integration", and
// "disk_write" when an integration writes to disk.
std::vector<std::string> kernels_needed(const std::vector<AppJob>& jobs);

struct AppJobResult {
  const AppJob* job = nullptr;
  double time_s = 0;     // LU: factorisation time (as hetperf-lu reports it); integrate: mean response
  nlohmann::json json;   // the prediction's entry
  nlohmann::json trace;  // hetperf.trace/1 with backend "sim" (only when events were kept)
};

struct AppPrediction {
  std::vector<AppJobResult> jobs;
  double makespan_s = 0;
  std::uint64_t events = 0;
};

// Simulates all jobs at once on the platform (each from its start_s). With `traces`, every operation is
// kept and a trace is produced per job (for integration, one trace of all instances).
AppPrediction predict_app_jobs(const SimPlatform& platform, const Profile& profile, const std::vector<AppJob>& jobs,
                               bool traces);

// A sampled prediction: `samples` simulations of the jobs, sample i on sampled_platform(profile, seed,
// i), its times multiplied by exp((1 + d) · e) with e drawn from the job's computers'
// AppModels::model_error_log of its application (pooled over its computers, its quantile function
// interpolated between them) and
// d = extrapolation_distance; spread over `threads` threads (0: the
// machine's cores). Each sample depends on (seed, i) alone, so the result is the same on any number
// of threads.
struct SampledAppJobs {
  std::vector<std::vector<double>> time_s;  // [job][sample]
  // [job][sample]: the same simulations before their model error is drawn (e at its median, 0). Their
  // median is the typical run's time, the figure a measured median compares with: the median of
  // time_s mixes run states and model errors, and where the run states are skewed (a slow spell in a
  // few calibration runs) it lies above both medians (2-6% on this VM's recordings).
  std::vector<std::vector<double>> typical_s;
  std::vector<std::vector<std::vector<double>>> process_response_s;  // integrate: [job][instance][sample]
  std::set<std::string> warnings;                                    // the platforms' model warnings
};
SampledAppJobs sample_app_jobs(const Profile& profile, const std::vector<AppJob>& jobs, std::size_t samples,
                               std::uint64_t seed, unsigned threads = 0);
// Samples [first, first + count) only (for splitting the samples over processes).
SampledAppJobs sample_app_jobs(const Profile& profile, const std::vector<AppJob>& jobs, std::size_t first,
                               std::size_t count, std::uint64_t seed, unsigned threads);

// How far `job` lies from what its computers' models were calibrated on, in octaves: per computer,
// the ranks the job maps there against the nearest calibrated rank count (|log2 ratio|) plus its size
// beyond the calibrated sizes of its app (0 inside them); the largest over its computers. 0 where a
// computer has no calibrated range.
double extrapolation_distance(const Profile& profile, const AppJob& job);

// A calibration run against its prediction by the mechanisms alone (the profile's models, no factor
// of any configuration): what they miss there. Kept in the profile's diagnostics and reported; the
// prediction never applies it.
struct CalibrationDiagnostic {
  std::string trace;
  std::string configuration;                // "lu n=1024 r=128 basic", "integrate 4x2 steps=1000000 m32 d0"
  std::vector<std::string> rank_computers;  // the computer of every rank
  std::vector<std::size_t> mapping;         // the same as indices into the profile's computers
  double measured_s = 0;                    // LU's factorisation, integration's mean response
  double predicted_s = 0;                   // the point prediction of its configuration
  std::string app;                          // "lu" or "integrate"
  double ratio() const { return predicted_s > 0 ? measured_s / predicted_s : 0; }
};
// Every trace predicted with its ranks on `computer` when given (every trace taken on it), else on the
// computers named by its run.rank_hosts, else its run.host. InputError naming the file and field for a
// trace without its configuration or summary, or for a host that is not a computer of `profile`.
std::vector<CalibrationDiagnostic> calibration_diagnostics(const Profile& profile,
                                                           const std::vector<std::filesystem::path>& traces,
                                                           const std::string& computer = {});
nlohmann::json to_json(const std::vector<CalibrationDiagnostic>& diagnostics);
// One line per configuration and computers: its runs' measured / predicted, median and range.
std::vector<std::string> diagnostics_report(const std::vector<CalibrationDiagnostic>& diagnostics);
// The spread of the mechanisms' error over calibration configurations, less the noise of the
// configurations' medians. A configuration's deviation is the median of its runs' ln(measured /
// predicted), and a median of a few runs carries their run-to-run noise, which a sampled prediction
// already draws with the run states (OperationNoise): left in, the intervals counted it twice (80%
// intervals held 92-96% of the runs of noisy recordings). The noise of each configuration's median is
// estimated without a distributional form: medians of as many values drawn from the runs' deviations
// from their configuration's mean, pooled over the configurations (each scaled by √(m / (m − 1)), as
// deviations from a mean of m are narrower than the noise); the model's share of the variance is
// what the observed variance, at its upper 90% bound (a bootstrap over the configurations: a dozen of
// them leave it uncertain), exceeds their mean variance by, at most all of it.
struct ModelErrorSpread {
  double observed_variance = 0;        // of the configurations' deviations
  double observed_variance_upper = 0;  // its bootstrap 90th percentile
  double noise_variance = 0;           // mean over configurations of their median's noise
  double shrink = 1;                   // min(1, √(max(0, upper − noise) / observed)): the deviations' scale
};
// `runs_log`: per configuration its runs' ln(measured / predicted). Deterministic (a fixed seed).
ModelErrorSpread model_error_spread(const std::vector<std::vector<double>>& runs_log);

// Puts the diagnostics into `profile.diagnostics["calibration_runs"]` and each computer's
// AppModels::model_error_log, per application: per configuration the log of its median ratio, less the
// median of those of the computer and application (the spread of what the mechanisms miss, not a
// correction: its centre is removed), scaled by model_error_spread's shrink (recorded in
// `profile.diagnostics["model_error"][computer][application]`).
void record_diagnostics(Profile& profile, const std::vector<CalibrationDiagnostic>& diagnostics);

// The distribution of sampled times as the prediction reports it: median, mean, the 5/10/90/95th
// percentiles (nearest rank) and the samples.
nlohmann::json distribution_json(const std::vector<double>& samples, bool with_samples = true);

// A batch job's application model ("lu" or "integrate", hetperf/model/batch_jobs.hpp) as the table
// of its iteration time per processor count (`hetperf schedule`): one iteration is one whole run of
// the application (a factorisation; an integration whose `steps` are shared by its P − 1 workers),
// simulated with the simulated back-end on P ranks placed on the profile's first P cores (computers in
// profile order), for every P from 1 (integration: 2) up to `max_processors` and the cores (LU: at
// most n / r). The profile must have been bound to the job (bind() checks those computers' figures and
// that an integration has two cores); `max_processors` >= 2 for an integration.
std::map<std::int64_t, double> app_model_as_table(const BatchAppModel& app, const Profile& profile,
                                                  std::int64_t max_processors);
// The operations app_model_as_table simulates one by one (for LU the sum of lu_simulated_operations
// over P, hetperf/model/app_jobs_spec.hpp; an integration's are few), to refuse a table that would
// take no plausible time before any simulation.
double app_model_table_operations(const BatchAppModel& app, const Profile& profile, std::int64_t max_processors);

}  // namespace hetperf::apps
