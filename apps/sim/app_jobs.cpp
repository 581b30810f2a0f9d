// Application jobs of a workload, predicted with the simulated back-end (see app_jobs.hpp).
#include "hetperf/apps/sim/app_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <thread>

#include "hetperf/model/distribution.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::apps {
namespace {

// The computer's model of `kernel` on compact blocks (lu_shape false: rows 0), or at the block LU's
// shapes (true: the one of most rows); nullptr when there is none.
const KernelModel* find_kernel(const Computer& c, const std::string& kernel, bool lu_shape) {
  const KernelModel* best = nullptr;
  for (const auto& k : c.kernels) {
    if (k.kernel != kernel || (k.rows > 0) != lu_shape) continue;
    if (!best || k.rows > best->rows) best = &k;
  }
  return best;
}

const KernelModel* find_kernel(const Computer& c, const std::string& kernel) {
  const KernelModel* k = find_kernel(c, kernel, true);
  return k ? k : find_kernel(c, kernel, false);
}

nlohmann::json iterations_json(const std::vector<IterationSummary>& its, double origin) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& it : its) {
    out.push_back({{"iteration", it.iteration},
                   {"start_s", it.start_s - origin},
                   {"end_s", it.end_s - origin},
                   {"time_s", it.end_s - it.start_s},
                   {"compute_s", it.compute_s},
                   {"ranks", it.ranks},
                   {"efficiency", it.efficiency()}});
  }
  return out;
}

// Events of ranks [first, first + count) of an app run, per rank, times from `origin`.
nlohmann::json ranks_json(const std::vector<TraceEvent>& events, int first, int count, double origin) {
  std::vector<nlohmann::json> per(static_cast<std::size_t>(count), nlohmann::json::array());
  std::vector<std::vector<const TraceEvent*>> by_rank(static_cast<std::size_t>(count));
  for (const auto& e : events) {
    if (e.rank >= first && e.rank < first + count) by_rank[e.rank - first].push_back(&e);
  }
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    // Completion order mixes ranks, but each rank's own operations end in the order it issued them.
    const auto& list = by_rank[i];
    nlohmann::json evs = nlohmann::json::array();
    for (const TraceEvent* e : list) {
      TraceEvent shifted = *e;
      shifted.rank = i;
      shifted.start_s -= origin, shifted.end_s -= origin;
      evs.push_back(to_json(shifted));
    }
    out.push_back({{"rank", i}, {"events", std::move(evs)}});
  }
  return out;
}

nlohmann::json mapping_names(const Profile& profile, const std::vector<std::size_t>& mapping) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t c : mapping) out.push_back(profile.computers[c].name);
  return out;
}

// The kernel times of the profile's computers: from the trace-calibrated operation model of the
// call's operation where the computer has one (its time alone on the computer; the processor slows it
// by the ranks computing beside it; times the sampled run state and ε when `noise` is given), else from
// the micro-benchmark KernelModels; plus the computer's time between calls (AppModels::call_gap_s). A
// call outside a model's calibrated range is noted once per computer and operation in `warnings`.
std::function<double(const KernelCall&, std::size_t)> kernel_times(
    const Profile& profile, std::shared_ptr<OperationNoise> noise,
    const std::shared_ptr<std::set<std::string>>& warnings) {
  struct Computers {
    std::vector<KernelModels> micro;
    std::vector<AppModels> app;
    std::vector<std::string> names;
  };
  // Copies of the models: the platform may outlive the profile.
  auto models = std::make_shared<Computers>();
  for (const auto& c : profile.computers)
    models->micro.push_back(KernelModels::of(c)), models->app.push_back(c.app_models), models->names.push_back(c.name);
  return [models, noise, warnings](const KernelCall& call, std::size_t c) {
    const AppModels& app = models->app[c];
    if (const OperationModel* m = app.find(call.kernel)) {
      OperationCall oc{call.kernel, static_cast<double>(call.m), static_cast<double>(call.n),
                       static_cast<double>(call.k), static_cast<double>(call.steps)};
      if (warnings && !m->in_range(oc)) {
        warnings->insert(models->names[c] + ": " + call.kernel +
                         " calls outside the calibrated range of its model: extrapolated");
      }
      double t = m->time_s(oc);
      if (noise) t *= noise->run_factor(c, app, call.kernel) * m->residual(t, noise->uniform());
      return t + app.call_gap_s;
    }
    return models->micro[c].time_s(call) + app.call_gap_s;
  };
}

// The platform's kernel times, and on computers with a trace-calibrated message model the time of a
// message between two of their ranks: the line (fitted with at most as many ranks as cores), plus
// with `noise` a delay of the drawn run's (the hand-off of an oversubscribed computer follows in the
// ranks' world, sim::RankWorld::arrive).
void use_models(SimPlatform& p, const Profile& profile, const std::shared_ptr<OperationNoise>& noise) {
  p.kernel_time = kernel_times(profile, noise, p.model_warnings);
  for (std::size_t c = 0; c < profile.computers.size(); ++c) {
    const AppModels& models = profile.computers[c].app_models;
    if (!models.messages) continue;
    auto copy = std::make_shared<AppModels>(models);
    p.computers[c].local_message_s = [copy, noise, c](std::uint64_t bytes, int) {
      return copy->messages->time_s(bytes) + (noise ? noise->message_delay(c, *copy) : 0.0);
    };
  }
}

}  // namespace

KernelModels KernelModels::of(const Computer& c) {
  auto copy = [&](const char* name, bool lu_shape) {
    const KernelModel* k = find_kernel(c, name, lu_shape);
    return k ? std::optional<KernelModel>(*k) : std::nullopt;
  };
  return {copy("dgemm", false),  copy("dtrsm", false), copy("dgetrf", false),
          copy("dlaswp", false), copy("dgemm", true),  copy("dtrsm", true),
          copy("dgetrf", true),  copy("dlaswp", true), c.integration_step_s.value_or(0)};
}

double KernelModels::time_s(const KernelCall& call) const {
  auto t = [](const std::optional<KernelModel>& k, double r) { return std::max(0.0, k->time_s(r)); };
  // The line through (m0, t0) and (m1, t1) at m, never below zero.
  auto line = [](double m, double m0, double t0, double m1, double t1) {
    return std::max(0.0, t0 + (m - m0) * (t1 - t0) / (m1 - m0));
  };
  const double M = call.m, N = call.n, K = call.k;
  if (call.kernel == "gemm") {
    // C (M x N) −= A (M x K) · B (K x N), in N/K block columns of K x K. The compact model times
    // M = K, the LU-shape model M = T − K; between them and beyond, the time is linear in M.
    if (K <= 0) return 0;
    double per_block = 0;
    if (gemm_lu) {
      const double tall_m = static_cast<double>(gemm_lu->rows) - K, tall = t(gemm_lu, K);
      per_block = gemm && tall_m > K ? line(M, K, t(gemm, K), tall_m, tall) : tall * M / tall_m;
    } else {
      HETPERF_CHECK(gemm.has_value(), "dgemm model missing");
      per_block = t(gemm, K) * M / K;  // by operation count
    }
    return per_block * N / K;
  }
  if (call.kernel == "getrf") {
    // M x N panel: operations M·N² − N³/3. Compact model at M = N, LU-shape model at M = T; linear in M.
    if (N <= 0) return 0;
    auto ops = [N](double m) { return m * N * N - N * N * N / 3; };
    if (getrf_lu) {
      const double tall_m = static_cast<double>(getrf_lu->rows), tall = t(getrf_lu, N);
      if (getrf && tall_m > N) return line(M, N, t(getrf, N), tall_m, tall);
      return tall * ops(M) / ops(tall_m);
    }
    HETPERF_CHECK(getrf.has_value(), "dgetrf model missing");
    return t(getrf, N) * ops(M) / ops(N);
  }
  if (call.kernel == "trsm") {
    // M x M triangle, N right-hand sides: N/M blocks of M x M.
    if (M <= 0) return 0;
    HETPERF_CHECK(trsm_lu || trsm, "dtrsm model missing");
    return t(trsm_lu ? trsm_lu : trsm, M) * N / M;
  }
  if (call.kernel == "laswp") {
    // K row interchanges over N columns: N/K blocks of K columns.
    if (K <= 0) return 0;
    HETPERF_CHECK(laswp_lu || laswp, "dlaswp model missing");
    return t(laswp_lu ? laswp_lu : laswp, K) * N / K;
  }
  if (call.kernel == "pack") return 0;  // no micro-benchmark times a copy: only traces calibrate it
  HETPERF_CHECK(call.kernel == "integrate", "unknown kernel " + call.kernel);
  return static_cast<double>(call.steps) * integration_step_s;
}

AppJob app_job(const AppJobSpec& spec, std::vector<std::size_t> mapping) {
  AppJob job;
  job.name = spec.name;
  job.json_path = spec.json_path;
  job.start_s = spec.start_s;
  job.instances = spec.instances;
  job.ranks = spec.ranks;
  job.mapping = std::move(mapping);
  if (spec.kind == AppKind::kLu) {
    job.kind = AppJob::Kind::kLu;
    job.lu.n = spec.lu.n, job.lu.r = spec.lu.r, job.lu.variant = spec.lu.variant, job.lu.window = spec.lu.window;
    job.lu.remove = spec.lu.remove_ranks, job.lu.remove_after_iteration = spec.lu.remove_after_iteration;
    job.lu.expand = spec.lu.expand_ranks, job.lu.expand_after_iteration = spec.lu.expand_after_iteration;
    job.lu.bcast = spec.lu.bcast, job.lu.parallel_multiply = spec.lu.parallel_multiply;
  } else {
    job.kind = AppJob::Kind::kIntegrate;
    job.integrate.a = spec.integrate.a, job.integrate.b = spec.integrate.b, job.integrate.steps = spec.integrate.steps;
    job.integrate.message_bytes = spec.integrate.message_bytes, job.integrate.disk_bytes = spec.integrate.disk_bytes;
  }
  return job;
}

std::vector<AppJob> app_jobs(const Workload& workload, const Binding& binding) {
  HETPERF_CHECK(binding.app_mappings.size() == workload.apps.size(), "the binding is not of this workload");
  std::vector<AppJob> jobs;
  for (std::size_t i = 0; i < workload.apps.size(); ++i)
    jobs.push_back(app_job(workload.apps[i], binding.app_mappings[i]));
  return jobs;
}

std::vector<std::string> kernels_needed(const std::vector<AppJob>& jobs) {
  bool lu = false, integrate = false, disk = false;
  for (const auto& j : jobs) {
    (j.kind == AppJob::Kind::kLu ? lu : integrate) = true;
    disk = disk || (j.kind == AppJob::Kind::kIntegrate && j.integrate.disk_bytes > 0);
  }
  std::vector<std::string> out;
  if (lu) out = {"dgemm", "dtrsm", "dgetrf", "dlaswp"};
  if (integrate) out.push_back("integration");
  if (disk) out.push_back("disk_write");
  return out;
}

SimPlatform sim_platform_from_profile(const Profile& profile, const std::string& profile_file,
                                      const std::vector<std::string>& needed) {
  for (std::size_t c = 0; c < profile.computers.size(); ++c) {
    const Computer& computer = profile.computers[c];
    for (const auto& k : needed) {
      const std::string where = profile_file + ": $.computers[" + std::to_string(c) + "].";
      if (k == "disk_write") {
        if (!(computer.disk_write_bytes_per_s > 0)) {
          throw InputError(where + "disk_write_bytes_per_s: " + computer.name +
                           " has no disk write throughput, which the application jobs' disk writes need");
        }
        continue;
      }
      bool present = k == "integration"
                         ? computer.integration_step_s.has_value() || computer.app_models.find("integrate")
                         : find_kernel(computer, k) != nullptr || computer.app_models.find(k.substr(1));
      if (!present) {
        throw InputError(
            where + (k == "integration" ? "integration_step_s" : "kernels") + ": " + computer.name + " has no " +
            (k == "integration" ? "integration step time" : k + " kernel model") +
            ", which the workload's application jobs need (probe with the cpu probe's kernels, then calibrate)");
      }
    }
  }
  if (!(profile.network.bandwidth_bytes_per_s > 0)) {
    throw InputError(profile_file +
                     ": $.network.bandwidth_bytes_per_s: missing, which the application jobs' messages need");
  }
  return sim_platform_from_profile(profile);
}

SimPlatform sim_platform_from_profile(const Profile& profile) {
  SimPlatform p;
  for (const Computer& computer : profile.computers) {
    SimComputer c;
    c.name = computer.name;
    c.cores = computer.cores;
    c.disk_write_bytes_per_s = computer.disk_write_bytes_per_s;
    c.disk_sync_latency_s = computer.disk_sync_latency_s;
    c.wait_cpu_share = computer.cpu_share_waiting;
    c.cpu_share_per_send = computer.cpu_share_per_send;
    c.cpu_share_per_receive = computer.cpu_share_per_receive;
    if (computer.page_retouch) c.page_retouch = *computer.page_retouch;
    c.oversubscribed_handoff_s = computer.oversubscribed_handoff_s;
    c.handoff_slice_s = computer.handoff_slice_s;
    c.time_slice_s = computer.time_slice_s;
    if (computer.local_eager_limit) c.local_eager_limit_bytes = computer.local_eager_limit->bytes;
    // Trace-calibrated operation models give a kernel's time alone on the computer: the ranks computing
    // beside it slow it by the speeds fitted with them, else by the probe's concurrent copies.
    c.core_efficiency = computer.core_efficiency;
    c.concurrency_speed = !computer.app_models.concurrency_speed.empty() ? computer.app_models.concurrency_speed
                                                                         : computer.concurrency_speed;
    p.computers.push_back(c);
  }
  p.latency_s = profile.network.latency_s;
  p.bandwidth_bytes_per_s = profile.network.bandwidth_bytes_per_s;
  // Each message takes its protocol regime's line, not one line over all sizes (bent by the small).
  for (const MessageRegime& r : profile.network.regimes)
    p.regimes.push_back({r.min_size_bytes, r.latency_s, r.seconds_per_byte});
  if (profile.network.send_buffer) p.send_buffer_bytes = profile.network.send_buffer->bytes;
  p.eager_limit_bytes = profile.network.eager_limit_bytes();
  use_models(p, profile, nullptr);
  return p;
}

SimPlatform sampled_platform(const Profile& profile, std::uint64_t seed, std::uint64_t sample) {
  SimPlatform p = sim_platform_from_profile(profile);
  // The order of an oversubscribed computer's turns is a run state as the run factors are: each sample
  // draws its own (the point prediction keeps the cores in step).
  Rng turns(seed ^ (0xA0761D6478BD642FULL * (sample + 1)));
  for (SimComputer& c : p.computers) c.turn_order_seed = turns.next() | 1;
  use_models(p, profile, std::make_shared<OperationNoise>(seed, sample));
  return p;
}

// An LU job's result: its time from the barrier after set-up to the last rank's end (as hetperf-lu
// measures it), its JSON and with `traces` its simulated trace.
void lu_job_result(const AppJob& job, const std::vector<LuResult>& lu_results, const SimAppResult& first,
                   const nlohmann::json& run_facts, bool traces, AppJobResult& r) {
  double start = job.start_s, end = job.start_s;  // as hetperf-lu: from the barrier after set-up
  for (const auto& lr : lu_results) {
    start = std::max(start, lr.factorization_start_s);
    end = std::max(end, lr.factorization_end_s);
  }
  r.time_s = end - start;
  nlohmann::json config = {{"n", job.lu.n},
                           {"r", job.lu.r},
                           {"variant", to_string(job.lu.variant)},
                           {"window", job.lu.window},
                           {"remove", job.lu.remove},
                           {"after_iteration", job.lu.remove_after_iteration},
                           {"seed", job.lu.seed},
                           {"bcast", to_string(job.lu.bcast)},
                           {"parallel_multiply", job.lu.parallel_multiply}};
  if (job.lu.expand > 0)
    config["expand"] = {{"ranks", job.lu.expand}, {"after_iteration", job.lu.expand_after_iteration}};
  nlohmann::json summary = {{"factorization_s", r.time_s},
                            {"gflops", 2.0 / 3.0 * std::pow(static_cast<double>(job.lu.n), 3) / r.time_s / 1e9}};
  // Redistributions need the events: predicted when they are kept (traces), as hetperf-lu measures them.
  if ((job.lu.expand > 0 || job.lu.remove > 0) && !first.events.empty()) {
    summary["redistributions"] = redistributions_json(lu_redistributions(first.events, job.lu, job.ranks), job.start_s);
  }
  nlohmann::json iterations = iterations_json(first.iterations, job.start_s);
  r.json = {{"name", job.name},        {"app", "lu"},          {"config", config},   {"ranks", job.ranks},
            {"start_s", job.start_s},  {"end_s", first.end_s}, {"time_s", r.time_s}, {"summary", summary},
            {"iterations", iterations}};
  if (traces) {
    r.trace = {{"schema", "hetperf.trace/1"},
               {"app", "lu"},
               {"backend", "sim"},
               {"config", config},
               {"run", run_facts},
               {"summary", summary},
               {"iterations", iterations},
               {"ranks", ranks_json(first.events, 0, job.ranks, job.start_s)}};
  }
}

// An integration job's result: the mean response of its instances, its JSON and with `traces` the
// first instance's simulated trace.
void integrate_job_result(const AppJob& job, const std::vector<IntegrateResult>& results,
                          std::span<const SimAppResult> instances, const nlohmann::json& run_facts, bool traces,
                          AppJobResult& r) {
  nlohmann::json processes = nlohmann::json::array();
  double sum = 0;
  for (int i = 0; i < job.instances; ++i) {
    double response = results[static_cast<std::size_t>(i)].response_s;
    sum += response;
    processes.push_back({{"instance", i}, {"response_s", response}});
  }
  r.time_s = sum / job.instances;
  double end = 0;
  for (int i = 0; i < job.instances; ++i) end = std::max(end, instances[static_cast<std::size_t>(i)].end_s);
  nlohmann::json config = {{"a", job.integrate.a},
                           {"b", job.integrate.b},
                           {"steps", job.integrate.steps},
                           {"message_bytes", job.integrate.message_bytes},
                           {"disk_bytes", job.integrate.disk_bytes},
                           {"instances", job.instances},
                           {"ranks_per_instance", job.ranks}};
  nlohmann::json summary = {{"mean_response_s", r.time_s}};
  r.json = {{"name", job.name},       {"app", "integrate"}, {"config", config},   {"ranks", job.ranks * job.instances},
            {"start_s", job.start_s}, {"end_s", end},       {"time_s", r.time_s}, {"summary", summary},
            {"processes", processes}};
  if (traces) {
    r.trace = {{"schema", "hetperf.trace/1"},
               {"app", "integrate"},
               {"backend", "sim"},
               {"config", config},
               {"run", run_facts},
               {"summary", summary},
               {"processes", processes},
               {"instance_0_ranks", ranks_json(instances.front().events, 0, job.ranks, job.start_s)}};
  }
}

AppPrediction predict_app_jobs(const SimPlatform& platform, const Profile& profile, const std::vector<AppJob>& jobs,
                               bool traces) {
  // Per job: the ranks' results (LU) or the instances' results (integration), alive during the run.
  std::vector<std::vector<LuResult>> lu_results(jobs.size());
  std::vector<std::vector<IntegrateResult>> int_results(jobs.size());
  std::vector<SimApp> apps;
  std::vector<std::size_t> first_app(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const AppJob& job = jobs[j];
    first_app[j] = apps.size();
    if (job.kind == AppJob::Kind::kLu) {
      lu_results[j].resize(static_cast<std::size_t>(job.ranks));
      auto* results = &lu_results[j];
      const LuConfig* cfg = &job.lu;
      SimApp app{job.name, job.mapping, job.start_s, [results, cfg](Runtime& rt) {
                   return lu_rank(rt, *cfg, (*results)[static_cast<std::size_t>(rt.rank())]);
                 }};
      const int ranks = job.ranks;
      app.ranks_in_iteration = [cfg, ranks](int k) { return lu_ranks_in_iteration(*cfg, ranks, k); };
      apps.push_back(std::move(app));
    } else {
      int_results[j].resize(static_cast<std::size_t>(job.instances));
      for (int i = 0; i < job.instances; ++i) {
        auto* result = &int_results[j][static_cast<std::size_t>(i)];
        const IntegrateConfig* cfg = &job.integrate;
        std::vector<std::size_t> mapping(job.mapping.begin() + i * job.ranks,
                                         job.mapping.begin() + (i + 1) * job.ranks);
        SimApp app{job.name + "/" + std::to_string(i), mapping, job.start_s,
                   [result, cfg](Runtime& rt) { return integrate_rank(rt, *cfg, *result); }};
        app.launch_group = static_cast<int>(j);  // one mpiexec starts every instance
        apps.push_back(std::move(app));
      }
    }
  }
  SimRunResult run = simulate_apps(platform, apps, SimOptions{traces});
  AppPrediction out;
  out.makespan_s = run.makespan_s;
  out.events = run.simulation_events;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const AppJob& job = jobs[j];
    AppJobResult r;
    r.job = &job;
    const SimAppResult& first = run.apps[first_app[j]];
    nlohmann::json run_facts = {{"platform_computers", profile.computers.size()},
                                {"ranks", job.ranks * job.instances},
                                {"mapping", mapping_names(profile, job.mapping)}};
    if (job.kind == AppJob::Kind::kLu) {
      lu_job_result(job, lu_results[j], first, run_facts, traces, r);
    } else {
      integrate_job_result(
          job, int_results[j],
          std::span<const SimAppResult>(run.apps).subspan(first_app[j], static_cast<std::size_t>(job.instances)),
          run_facts, traces, r);
    }
    out.jobs.push_back(std::move(r));
  }
  return out;
}

double app_model_table_operations(const BatchAppModel& app, const Profile& profile, std::int64_t max_processors) {
  std::int64_t cores = 0;
  for (const auto& c : profile.computers) cores += c.cores;
  std::int64_t top = std::min(max_processors, cores);
  if (app.kind != BatchAppModel::Kind::kLu) return 4.0 * static_cast<double>(top) * static_cast<double>(top);
  top = std::min<std::int64_t>(top, app.lu.n / app.lu.r);
  double total = 0;
  for (std::int64_t p = 1; p <= top; ++p) total += lu_simulated_operations(app.lu, static_cast<int>(p));
  return total;
}

std::map<std::int64_t, double> app_model_as_table(const BatchAppModel& app, const Profile& profile,
                                                  std::int64_t max_processors) {
  HETPERF_CHECK(app.kind != BatchAppModel::Kind::kTable, "a table needs no tabulation");
  std::vector<std::size_t> cores;  // the computer of each core, in profile order
  for (std::size_t c = 0; c < profile.computers.size(); ++c) {
    cores.insert(cores.end(), static_cast<std::size_t>(profile.computers[c].cores), c);
  }
  std::int64_t top = std::min<std::int64_t>(max_processors, static_cast<std::int64_t>(cores.size()));
  AppJobSpec spec;
  spec.name = "app-model";
  spec.kind = app.kind == BatchAppModel::Kind::kLu ? AppKind::kLu : AppKind::kIntegrate;
  spec.lu = app.lu;
  spec.integrate = app.integrate;
  AppJob job = app_job(spec, {});
  std::int64_t first = 1;
  if (job.kind == AppJob::Kind::kLu)
    top = std::min<std::int64_t>(top, app.lu.n / app.lu.r);
  else
    first = 2;
  HETPERF_CHECK(top >= first, "an integration model on fewer than two processors (bind checks the profile)");
  SimPlatform platform = sim_platform_from_profile(profile);
  std::map<std::int64_t, double> table;
  for (std::int64_t p = first; p <= top; ++p) {
    job.ranks = static_cast<int>(p);
    job.mapping.assign(cores.begin(), cores.begin() + p);
    if (job.kind == AppJob::Kind::kIntegrate)
      job.integrate.steps = std::max<std::uint64_t>(1, app.integrate.steps / (p - 1));
    table[p] = predict_app_jobs(platform, profile, {job}, false).jobs.front().time_s;
  }
  return table;
}

SampledAppJobs sample_app_jobs(const Profile& profile, const std::vector<AppJob>& jobs, std::size_t samples,
                               std::uint64_t seed, unsigned threads) {
  return sample_app_jobs(profile, jobs, 0, samples, seed, threads);
}

double extrapolation_distance(const Profile& profile, const AppJob& job) {
  std::map<std::size_t, int> ranks_on;
  for (std::size_t c : job.mapping) ++ranks_on[c];
  const bool lu = job.kind == AppJob::Kind::kLu;
  const double size = lu ? static_cast<double>(job.lu.n) : static_cast<double>(job.integrate.steps);
  double farthest = 0;
  for (const auto& [c, ranks] : ranks_on) {
    const CalibratedRange& range = profile.computers[c].app_models.calibrated;
    double d = 0;
    if (!range.ranks.empty()) {
      double nearest = INFINITY;
      for (int k : range.ranks) nearest = std::min(nearest, std::fabs(std::log2(static_cast<double>(ranks) / k)));
      d += nearest;
    }
    if (auto it = range.sizes.find(lu ? "lu" : "integrate"); it != range.sizes.end()) {
      d += std::max({0.0, std::log2(size / it->second.second), std::log2(it->second.first / size)});
    }
    farthest = std::max(farthest, d);
  }
  return farthest;
}

namespace {

// The model error a job's samples draw from: the deviations of its application's calibration
// configurations on its computers, pooled (AppModels::model_error_log), ascending.
std::vector<double> model_errors(const Profile& profile, const AppJob& job) {
  const std::string app = to_string(job.kind);
  std::vector<double> out;
  for (std::size_t c : std::set<std::size_t>(job.mapping.begin(), job.mapping.end())) {
    const auto& logs = profile.computers[c].app_models.model_error_log;
    auto e = logs.find(app);
    if (e == logs.end()) e = logs.find("");  // a profile written before they were kept per application
    if (e != logs.end()) out.insert(out.end(), e->second.begin(), e->second.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The u-quantile of the ascending `e`, interpolated between neighbours (Hyndman and Fan's definition
// 7): the deviations are a few points of a continuous spread; drawn as they are, an even number of
// them has no value at its centre and a sampled median fell on one side of it or the other (±30%).
double quantile_between(const std::vector<double>& e, double u) {
  const double x = u * static_cast<double>(e.size() - 1);
  const auto i = std::min(e.size() - 1, static_cast<std::size_t>(x));
  return i + 1 < e.size() ? e[i] + (x - static_cast<double>(i)) * (e[i + 1] - e[i]) : e[i];
}

}  // namespace

SampledAppJobs sample_app_jobs(const Profile& profile, const std::vector<AppJob>& jobs, std::size_t first,
                               std::size_t count, std::uint64_t seed, unsigned threads) {
  SampledAppJobs out;
  out.time_s.assign(jobs.size(), std::vector<double>(count));
  out.typical_s.assign(jobs.size(), std::vector<double>(count));
  out.process_response_s.resize(jobs.size());
  // Each sample is a simulation drawing every computer's run state and every call's residual; its
  // times are then multiplied by exp((1 + d) · e), e one of the mechanisms' deviations at the
  // calibration configurations and d the job's distance from them in octaves: what the mechanisms
  // miss where they were calibrated, growing with the distance from there.
  std::vector<std::vector<double>> errors(jobs.size());
  std::vector<double> distance(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].kind == AppJob::Kind::kIntegrate) {
      out.process_response_s[j].assign(static_cast<std::size_t>(jobs[j].instances), std::vector<double>(count));
    }
    errors[j] = model_errors(profile, jobs[j]);
    distance[j] = extrapolation_distance(profile, jobs[j]);
  }
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, count)));
  std::vector<std::set<std::string>> warnings(threads);
  std::vector<std::exception_ptr> failures(threads);
  auto work = [&](unsigned t) {
    try {
      for (std::size_t i = t; i < count; i += threads) {
        const SimPlatform platform = sampled_platform(profile, seed, first + i);
        const AppPrediction p = predict_app_jobs(platform, profile, jobs, false);
        Rng rng(seed ^ (0xD1B54A32D192ED03ULL * (first + i + 1)));
        for (std::size_t j = 0; j < jobs.size(); ++j) {
          const auto& e = errors[j];
          const double u = rng.uniform01();
          const double factor = e.empty() ? 1.0 : std::exp((1 + distance[j]) * quantile_between(e, u));
          out.time_s[j][i] = p.jobs[j].time_s * factor;
          out.typical_s[j][i] = p.jobs[j].time_s;
          if (jobs[j].kind != AppJob::Kind::kIntegrate) continue;
          const auto& processes = p.jobs[j].json["processes"];
          for (std::size_t k = 0; k < processes.size(); ++k) {
            out.process_response_s[j][k][i] = processes[k]["response_s"].get<double>() * factor;
          }
        }
        warnings[t].insert(platform.model_warnings->begin(), platform.model_warnings->end());
      }
    } catch (...) {
      failures[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  for (const auto& w : warnings) out.warnings.insert(w.begin(), w.end());
  return out;
}

nlohmann::json distribution_json(const std::vector<double>& samples, bool with_samples) {
  double sum = 0;
  for (double v : samples) sum += v;
  nlohmann::json j = {{"n", samples.size()},
                      {"median", median(samples)},
                      {"mean", samples.empty() ? 0.0 : sum / static_cast<double>(samples.size())},
                      {"p5", quantile_nearest_rank(samples, 0.05)},
                      {"p10", quantile_nearest_rank(samples, 0.10)},
                      {"p90", quantile_nearest_rank(samples, 0.90)},
                      {"p95", quantile_nearest_rank(samples, 0.95)}};
  if (with_samples) j["samples"] = samples;
  return j;
}

}  // namespace hetperf::apps
