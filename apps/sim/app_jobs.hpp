// Application jobs in a workload ("apps", issue 6): real LU and integration runs described by their
// options and a rank-to-computer mapping, predicted with the simulated back-end on a platform profile.
// The kernel times come from the profile's calibrated kernel models (see sim_platform_from_profile).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/apps/integrate.hpp"
#include "hetperf/apps/lu.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/profile.hpp"
#include "sim_runtime.hpp"

namespace hetperf::apps {

struct AppJob {
  std::string name;
  std::string json_path;  // "$.apps[2]", for errors found later
  enum class Kind { kLu, kIntegrate } kind = Kind::kLu;
  LuConfig lu;
  IntegrateConfig integrate;
  int instances = 1;          // integrate: independent instances, each with `ranks` ranks
  int ranks = 2;              // LU: ranks; integrate: ranks per instance (master + workers)
  std::vector<std::size_t> mapping;  // computer of every rank (all instances, in order)
  double start_s = 0;
};

// Reads the workload's "apps" array (`node` at $.apps) against `profile` (computer names).
// InputError names the file, JSON path, field and expectation.
std::vector<AppJob> app_jobs_from_json(const JsonNode& node, const Profile& profile);

// The simulated platform of a profile: cores, disk write throughput, network l + s/b, and per computer
// the kernel time models scaled to the shape of each call:
//   gemm (m x n x k):  T_dgemm(k) · m·n / k²        (flops 2mnk over 2k³)
//   trsm (m x n):      T_dtrsm(m) · n / m
//   getrf (m x n):     T_dgetrf(n) · (m n² − n³/3) / (R n² − n³/3), R the measured panel height (n if square)
//   laswp (n cols, k): T_dlaswp(k) · n / k
//   integrate:         steps · integration_step_s
// where T(r) is the calibrated model t(r) = Σ c_p r^p (never below zero). `needed` lists the profile
// kernels the jobs use ("dgemm", "dtrsm", "dgetrf", "dlaswp", "integration"); a computer without one
// is an InputError naming the profile file.
SimPlatform sim_platform_from_profile(const Profile& profile, const std::string& profile_file,
                                      const std::vector<std::string>& needed);

// The profile kernels the jobs need.
std::vector<std::string> kernels_needed(const std::vector<AppJob>& jobs);

struct AppJobResult {
  const AppJob* job = nullptr;
  double time_s = 0;  // LU: factorisation time (as hetperf-lu reports it); integrate: mean response
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

// A batch job's application model (`hetperf schedule`, issue 8) given as an application,
//   {"kind": "lu", "n": N, "r": R, "variant": "basic", "iterations": K}
//   {"kind": "integrate", "steps": S, "message_bytes": M, "disk_bytes": D, "iterations": K}
// turned into the table model {"kind": "table", "iterations": K, "iteration_time_s": {"P": t, ...}}:
// one iteration is one whole run of the application (a factorisation; an integration whose S steps
// are shared by its P − 1 workers), simulated with the simulated back-end on P ranks placed on the
// profile's first P cores (computers in profile order), for every P from 1 (integration: 2) up to
// `max_processors` (LU: at most n / r). InputError names the file and path of a bad field.
nlohmann::json app_model_as_table(const JsonNode& app, const Profile& profile, const std::string& profile_file,
                                  std::int64_t max_processors);

}  // namespace hetperf::apps
