// Simulated block LU (the DPS paper's Table 1 simulated a 2592 x 2592 LU, r = 216,
// on 8 computers in 1.6 s and 14 MB): time and memory to simulate the LU application with the
// simulated back-end (no matrix allocated, kernels replaced by a flop-rate model), on 8 computers and on
// 1024 computers (n = 131072, r = 128: one column block per rank). Memory is the peak of live heap
// bytes during the run, counted by this program's operator new, and the process's peak RSS.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "hetperf/apps/lu.hpp"
#include "hetperf/apps/sim/sim_runtime.hpp"

namespace {

std::atomic<std::size_t> live_bytes{0}, peak_bytes{0};

void count_alloc(void* p) {
  if (!p) return;
  std::size_t now = live_bytes += malloc_usable_size(p);
  std::size_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
}

}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  count_alloc(p);
  return p;
}
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // free() of what our operator new malloc()ed
void operator delete(void* p) noexcept {
  if (p) live_bytes -= malloc_usable_size(p);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

using namespace hetperf::apps;

// Heterogeneous computers (1 to 4 cores, 4 to 16 Gflop/s per core), 20 µs latency, 1 GB/s links.
SimPlatform platform(int computers) {
  SimPlatform p;
  std::vector<double> gflops;
  for (int i = 0; i < computers; ++i) {
    SimComputer c;
    c.name = "c" + std::to_string(i);
    c.cores = 1 + i % 4;
    c.disk_write_bytes_per_s = 200e6;
    p.computers.push_back(c);
    gflops.push_back(4 + 4 * (i % 4));
  }
  p.latency_s = 20e-6;
  p.bandwidth_bytes_per_s = 1e9;
  p.kernel_time = [gflops](const KernelCall& k, std::size_t c) {
    double m = k.m, n = k.n, kk = k.k, flops = 0;
    if (k.kernel == "gemm") flops = 2 * m * n * kk;
    if (k.kernel == "trsm") flops = m * m * n;
    if (k.kernel == "getrf") flops = m * n * n - n * n * n / 3;
    if (k.kernel == "laswp") flops = n * kk;  // row swaps: memory traffic, counted as one flop per element
    return flops / (gflops[c] * 1e9);
  };
  return p;
}

void simulate_lu(benchmark::State& state, int n, int r, int ranks, LuVariant variant,
                 LuBcast bcast = LuBcast::kSequential, int parallel_multiply = 1) {
  SimPlatform p = platform(ranks);
  std::vector<std::size_t> mapping(ranks);
  for (int i = 0; i < ranks; ++i) mapping[i] = i;
  LuConfig cfg;
  cfg.n = n, cfg.r = r, cfg.variant = variant, cfg.bcast = bcast, cfg.parallel_multiply = parallel_multiply;
  double makespan = 0, events = 0;
  std::size_t peak = 0;
  for (auto _ : state) {
    std::size_t before = live_bytes.load();
    peak_bytes = before;
    LuResult result;
    SimApp app{"lu", mapping, 0, [&](Runtime& rt) { return lu_rank(rt, cfg, result); }};
    SimRunResult out = simulate_apps(p, {app}, SimOptions{false});
    makespan = out.makespan_s;
    events = static_cast<double>(out.simulation_events);
    peak = std::max(peak, peak_bytes.load() - before);
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  state.counters["simulated_s"] = makespan;
  state.counters["events"] = events;
  state.counters["peak_heap_mb"] = static_cast<double>(peak) / 1048576.0;
  state.counters["peak_rss_mb"] = static_cast<double>(u.ru_maxrss) / 1024.0;
}

void BM_LU_2592_r216_8(benchmark::State& s) { simulate_lu(s, 2592, 216, 8, static_cast<LuVariant>(s.range(0))); }
BENCHMARK(BM_LU_2592_r216_8)->Arg(0)->Arg(1)->Arg(2)->ArgName("variant")->Unit(benchmark::kMillisecond);

void BM_LU_131072_r128_1024(benchmark::State& s) {
  simulate_lu(s, 131072, 128, 1024, static_cast<LuVariant>(s.range(0)));
}
BENCHMARK(BM_LU_131072_r128_1024)->Arg(0)->Arg(1)->ArgName("variant")->Iterations(1)->Unit(benchmark::kSecond);

// Pipelined with a binomial-tree panel broadcast, without and with PM in 4 shares (its extra messages).
void BM_LU_131072_r128_1024_tree(benchmark::State& s) {
  simulate_lu(s, 131072, 128, 1024, LuVariant::kPipelined, LuBcast::kTree, static_cast<int>(s.range(0)));
}
BENCHMARK(BM_LU_131072_r128_1024_tree)->Arg(1)->Arg(4)->ArgName("pm")->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
