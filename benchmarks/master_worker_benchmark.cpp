// The master/worker star (one master, W FIFO workers of unlike speeds, T tasks: an input
// message from the master, a computation, a result message back; every input sent at t = 0), simulated
// whole, with its time, events and peak memory. The same scenario as the SimGrid oracle
// (tests/simgrid/master_worker_simgrid.cpp), so the two are timed on equal terms.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/simulator/unimpp_simulation.hpp"

namespace {

using nlohmann::json;

// Master and W workers of three speeds (1000, 1500, 2000 MI/s), 1 core each; 125 MB/s links, 100 µs.
hetperf::Profile star_profile(int workers) {
  json computers = json::array();
  auto computer = [](const std::string& name, double mips) {
    return json{{"name", name},
                {"cores", 1},
                {"mips", mips},
                {"main_memory_mb", 1024},
                {"virtual_memory_mb", 0},
                {"disk_read_bytes_per_s", 100e6},
                {"disk_write_bytes_per_s", 100e6},
                {"overhead_latency_s", 1e-4}};
  };
  computers.push_back(computer("master", 2000));
  const double speeds[] = {1000, 1500, 2000};
  for (int w = 0; w < workers; ++w) computers.push_back(computer("w-" + std::to_string(w + 1), speeds[w % 3]));
  json j = {{"schema", "hetperf.profile/1"},
            {"computers", computers},
            {"network", {{"latency_s", 1e-4}, {"bandwidth_bytes_per_s", 125e6}}}};
  return hetperf::profile_from_json(j, "star-profile");
}

// T tasks dealt round-robin to the workers: 1 MB in, 10 MI of work, 100 kB out.
hetperf::Workload star_workload(int workers, std::int64_t tasks) {
  json processes = json::array();
  for (int w = 0; w < workers; ++w) {
    std::int64_t count = tasks / workers + (w < tasks % workers ? 1 : 0);
    if (count == 0) continue;
    processes.push_back(
        {{"name", "task-w" + std::to_string(w + 1)},
         {"count", count},
         {"computer", "w-" + std::to_string(w + 1)},
         {"mi", 10},
         {"messages", {{"count", 2}, {"receive_bytes", 1e6}, {"send_bytes", 1e5}, {"peer", "master"}}}});
  }
  json j = {{"schema", "hetperf.workload/1"},
            {"policy",
             {{"placement", "round_robin"}, {"discipline", {{"default", "fifo"}, {"master", "processor_sharing"}}}}},
            {"processes", processes}};
  return hetperf::workload_from_json(j, "star-workload");
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void BM_MasterWorker(benchmark::State& state) {
  const int workers = static_cast<int>(state.range(0));
  const std::int64_t tasks = state.range(1);
  hetperf::Profile profile = star_profile(workers);
  hetperf::Workload workload = star_workload(workers, tasks);
  hetperf::sim::SimulationOptions options;
  options.timeline_points = 0;
  std::uint64_t events = 0;
  double makespan = 0;
  for (auto _ : state) {
    hetperf::Prediction p = hetperf::sim::simulate(profile, workload, "star-workload", options);
    events = p.summary.events;
    makespan = p.summary.makespan_s;
    benchmark::DoNotOptimize(p.summary.mean_response_s);
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["makespan_s"] = makespan;
  state.counters["peak_rss_mb"] = peak_rss_mb();
}
BENCHMARK(BM_MasterWorker)
    ->Args({10, 1000})
    ->Args({10, 10000})
    ->Args({10, 100000})
    ->Args({1000, 100000})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
