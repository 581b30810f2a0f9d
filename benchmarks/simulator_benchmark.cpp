// Simulator benchmarks: raw event-queue throughput, simulation events per second, and the time and
// peak memory (getrusage ru_maxrss) to simulate 1,000,000 processes on 1,000 heterogeneous computers.
// Targets on a 2-core machine: >= 2 million events/s; the 1M-process run under 10 s and 2 GB.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/simulator/engine/engine.hpp"
#include "hetperf/simulator/unimpp_simulation.hpp"

namespace {

using nlohmann::json;

// 1000 computers of four kinds (count each = computers / 4): cores, MIPS and memory differ, and the
// small ones have a memory slowdown function.
hetperf::Profile heterogeneous_profile(int computers) {
  auto kind = [&](const char* name, int cores, double mips, double memory_mb) {
    json c = {{"name", name},
              {"count", computers / 4},
              {"cores", cores},
              {"mips", mips},
              {"main_memory_mb", memory_mb},
              {"virtual_memory_mb", memory_mb},
              {"disk_read_bytes_per_s", 150e6},
              {"disk_write_bytes_per_s", 100e6},
              {"overhead_latency_s", 5e-5},
              {"slowdown",
               {{"main", {{"kind", "linear"}, {"a_per_mb", 0.5 / memory_mb}, {"b", 0}}},
                {"virtual", {{"kind", "exponential"}, {"c", 0.5}, {"d_per_mb", 1.0 / memory_mb}}}}}};
    return c;
  };
  json j = {{"schema", "hetperf.profile/1"},
            {"computers", json::array({kind("big", 8, 3000, 32768), kind("mid", 4, 2000, 16384),
                                       kind("small", 2, 1500, 8192), kind("old", 1, 800, 2048)})},
            {"network", {{"latency_s", 5e-5}, {"bandwidth_bytes_per_s", 117e6}}}};
  return hetperf::profile_from_json(j, "benchmark-profile");
}

// `processes` UniMPP processes arriving as a Poisson stream that keeps the cluster about 70% busy:
// exponential work, uniform dynamic memory, disk reads and writes, and messages to outside.
hetperf::Workload stream_workload(std::int64_t processes, int computers, const std::string& placement) {
  double capacity_mips = computers / 4.0 * (8 * 3000 + 4 * 2000 + 2 * 1500 + 800);
  double mean_mi = 20000;
  json j = {
      {"schema", "hetperf.workload/1"},
      {"seed", 7},
      {"policy", {{"placement", placement}}},
      {"generators",
       json::array({{{"process",
                      {{"name", "job"},
                       {"mi", {{"distribution", "exponential"}, {"mean", mean_mi}}},
                       {"static_memory_mb", 64},
                       {"dynamic_memory_mb", {{"distribution", "uniform"}, {"min", 0}, {"max", 256}}},
                       {"disk_read", {{"ops", 2}, {"bytes_per_op", 1048576}}},
                       {"disk_write", {{"ops", 1}, {"bytes_per_op", 1048576}}},
                       {"messages", {{"count", 2}, {"bytes", 65536}}}}},
                     {"interarrival_s", {{"distribution", "exponential"}, {"mean", mean_mi / (0.7 * capacity_mips)}}},
                     {"count", processes}}})}};
  return hetperf::workload_from_json(j, "benchmark-workload");
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The engine's event rate: `range(0)` events pending at all times, each firing schedules the next at
// a random later time (one pop, one push, one dispatch per event), 1,000,000 events per iteration.
void BM_EventQueue(benchmark::State& state) {
  constexpr std::int64_t kEvents = 1'000'000;
  struct Again final : hetperf::sim::Handler {
    hetperf::sim::Engine* engine = nullptr;
    hetperf::Rng rng{1};
    std::int64_t left = 0;
    void fire(std::uint64_t key) override {
      if (--left > 0) engine->after(hetperf::sim::Duration(rng.uniform01()), *this, key);
    }
  };
  for (auto _ : state) {
    hetperf::sim::Engine engine;
    Again again;
    again.engine = &engine;
    again.left = kEvents;
    for (std::int64_t k = 0; k < state.range(0); ++k) engine.at(hetperf::sim::Time(again.rng.uniform01()), again, 0);
    engine.run();
    benchmark::DoNotOptimize(engine.events_fired());
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_EventQueue)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Whole simulations: events per second of simulated UniMPP processes.
void BM_SimulationEvents(benchmark::State& state) {
  int computers = static_cast<int>(state.range(1));
  hetperf::Profile profile = heterogeneous_profile(computers);
  hetperf::Workload workload = stream_workload(state.range(0), computers, "least_loaded");
  std::uint64_t events = 0;
  for (auto _ : state) {
    hetperf::Prediction p = hetperf::sim::simulate(profile, workload, "benchmark-workload");
    events += p.summary.events;
    benchmark::DoNotOptimize(p.summary.mean_response_s);
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimulationEvents)->Args({100000, 100})->Unit(benchmark::kMillisecond);

// The acceptance run: 1,000,000 processes on 1,000 heterogeneous computers, once.
void BM_MillionProcesses(benchmark::State& state) {
  hetperf::Profile profile = heterogeneous_profile(1000);
  hetperf::Workload workload = stream_workload(1'000'000, 1000, "least_loaded");
  std::uint64_t events = 0;
  double makespan = 0;
  for (auto _ : state) {
    hetperf::Prediction p = hetperf::sim::simulate(profile, workload, "benchmark-workload");
    events += p.summary.events;
    makespan = p.summary.makespan_s;
    benchmark::DoNotOptimize(p.summary.mean_response_s);
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["simulated_s"] = makespan;
  state.counters["peak_rss_mb"] = peak_rss_mb();
}
BENCHMARK(BM_MillionProcesses)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
