// EASY backfilling of a 100,000-job trace on 1,000 processors (a target of under 2 s on 2 cores).
// The trace is synthetic and deterministic (SplitMix64 with a fixed seed): widths 2^k for k in 0..9,
// log-uniform run times from 10 s to 6 h, requested times 1-3x the run time, and exponential
// inter-arrival times sized for an offered load of about 0.9.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>

#include "hetperf/simulator/batch/schedule.hpp"

namespace {

using hetperf::sim::batch::Cluster;
using hetperf::sim::batch::JobKind;
using hetperf::sim::batch::JobSpec;

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

std::vector<JobSpec> synthetic_trace(std::size_t jobs, std::int64_t processors, double load) {
  SplitMix64 rng{20261121};
  const double min_run = 10, max_run = 6 * 3600.0;
  // Mean width (2^k, k uniform in 0..9) and mean log-uniform run time give the mean work per job.
  const double mean_width = 1023.0 / 10.0;
  const double mean_run = (max_run - min_run) / std::log(max_run / min_run);
  const double mean_interarrival = mean_width * mean_run / (load * static_cast<double>(processors));
  std::vector<JobSpec> out(jobs);
  double t = 0;
  for (std::size_t i = 0; i < jobs; ++i) {
    JobSpec& j = out[i];
    j.id = static_cast<std::int64_t>(i) + 1;
    j.name = "job-" + std::to_string(j.id);
    j.kind = JobKind::kRigid;
    t += -mean_interarrival * std::log(1 - rng.uniform01());
    j.submit_s = std::floor(t);
    j.processors = std::int64_t{1} << (rng.next() % 10);
    double run = std::floor(min_run * std::exp(rng.uniform01() * std::log(max_run / min_run)));
    j.run_time_s = run;
    j.requested_time_s = std::ceil(run * (1 + 2 * rng.uniform01()));
  }
  return out;
}

void BM_EasyBackfilling(benchmark::State& state) {
  const auto jobs = synthetic_trace(static_cast<std::size_t>(state.range(0)), 1000, 0.9);
  hetperf::sim::batch::ScheduleOptions options;
  options.policy = "easy";
  const Cluster cluster = Cluster::homogeneous(1000);
  double utilisation = 0, mean_wait = 0;
  for (auto _ : state) {
    auto result = hetperf::sim::batch::simulate_schedule(cluster, jobs, options);
    utilisation = result.summary.utilisation;
    mean_wait = result.summary.mean_wait_s;
    benchmark::DoNotOptimize(result);
  }
  state.counters["jobs"] = static_cast<double>(jobs.size());
  state.counters["utilisation"] = utilisation;
  state.counters["mean_wait_s"] = mean_wait;
}
BENCHMARK(BM_EasyBackfilling)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Fcfs(benchmark::State& state) {
  const auto jobs = synthetic_trace(static_cast<std::size_t>(state.range(0)), 1000, 0.9);
  hetperf::sim::batch::ScheduleOptions options;
  options.policy = "fcfs";
  const Cluster cluster = Cluster::homogeneous(1000);
  for (auto _ : state) benchmark::DoNotOptimize(hetperf::sim::batch::simulate_schedule(cluster, jobs, options));
}
BENCHMARK(BM_Fcfs)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
