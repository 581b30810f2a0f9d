// Kernel timings with Google Benchmark (library API, custom reporter) and OpenBLAS/LAPACKE.
#include "hetperf/probes/kernel_probe.hpp"

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <lapacke.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>

#include "hetperf/model/error.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::probes {
namespace {

// Collects the seconds per call of every non-aggregate repetition; prints nothing.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      if (r.error_occurred) {
        error = r.error_message;
        continue;
      }
      if (r.iterations > 0) seconds_per_call.push_back(r.real_accumulated_time / static_cast<double>(r.iterations));
    }
  }
  std::vector<double> seconds_per_call;
  std::string error;
};

// One benchmark body: runs `state`'s loop, timing one call per iteration (manual time when the
// kernel's input must be restored between calls, outside the timed region).
using Body = std::function<void(benchmark::State&)>;

// Runs `body` as a Google Benchmark with repetitions as samples until the stopping rule is met.
SampleSummary measure(const std::string& name, const Body& body, bool manual_time, double divisor,
                      const KernelProbeOptions& o) {
  std::vector<double> samples;
  const double start = monotonic_seconds();
  int repetitions = static_cast<int>(o.repeat.min_samples + o.repeat.warmup);
  bool first = true;
  for (;;) {
    throw_if_interrupted();
    benchmark::ClearRegisteredBenchmarks();
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [&body](benchmark::State& s) { body(s); });
    b->Repetitions(repetitions)->MinTime(o.min_time_per_sample_s)->ReportAggregatesOnly(false);
    if (manual_time) b->UseManualTime();
    CollectingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    throw_if_interrupted();
    if (!reporter.error.empty()) throw EnvironmentError(name + ": " + reporter.error);
    std::size_t skip = first ? std::min(o.repeat.warmup, reporter.seconds_per_call.size()) : 0;
    for (std::size_t i = skip; i < reporter.seconds_per_call.size(); ++i) {
      samples.push_back(reporter.seconds_per_call[i] / divisor);
    }
    first = false;
    HETPERF_CHECK(!samples.empty(), "Google Benchmark reported no repetition");
    SampleSummary s = summarize(samples);
    if (precise_enough(s, o.repeat)) {
      s.precise = true;
      return s;
    }
    if (samples.size() >= o.repeat.max_samples || monotonic_seconds() - start >= o.repeat.time_cap_s) return s;
    repetitions = static_cast<int>(std::min<std::size_t>(samples.size(), o.repeat.max_samples - samples.size()));
  }
}

// Deterministic fill in [-0.5, 0.5) (xorshift), so runs are repeatable.
std::vector<double> random_matrix(std::uint64_t n, std::uint64_t seed) {
  std::vector<double> m(n);
  std::uint64_t x = seed | 1;
  for (auto& v : m) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5;
  }
  return m;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double thread_cpu_s() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The clock of a manually timed call. Under a CPU quota of `share` cores the waits for the next
// period fall in the timed call or in the untimed restore around it by chance: a testbed computer at
// half a core timed dgetrf's panels, whose restore copies 4 MB, at 1.2-1.7 times a whole core's time,
// not 2. There a call's time is its thread's CPU time over the share, its part of the waits.
std::function<double()> call_clock(double share) {
  if (share >= 1) return now_s;
  return [share] { return thread_cpu_s() / share; };
}

// Benchmark body, and whether it needs manual time, for `kernel` with block size r.
//
// rows 0: compact r x r blocks with leading dimension r, which stay in cache: dgemm C −= A B; dtrsm
// T12 = L11⁻¹ A12 with L11 unit lower triangular; dgetrf of the block; dlaswp of its r columns by its
// r pivots (the "row flipping" of DPS paper step 2).
//
// rows t > 0: the block LU's own shapes in a matrix of t rows (leading dimension t), as apps/src/lu.cpp
// calls them in its first iteration: dgemm C (t−r × r) −= L21 (t−r × r) · U12 (r × r); dtrsm of an
// r × r block by the unit lower r × r triangle; dgetrf of the t × r panel; dlaswp of r columns by the
// r pivots of such a panel (rows anywhere in t). dgemm and dlaswp also go round the block columns of a
// t × t matrix, one per call, as an LU iteration does: the block they update was last touched a whole
// sweep ago, so it comes from memory, not from the cache the previous call warmed.
//
// Kernels that overwrite their input (dtrsm, dgetrf) restore it outside the timed region.
std::pair<Body, bool> kernel_body(const std::string& kernel, std::uint64_t r64, std::uint64_t rows, double share) {
  const std::function<double()> clock = call_clock(share);
  const bool compact = rows == 0;
  const std::uint64_t t64 = compact ? r64 : rows;
  const int r = static_cast<int>(r64), t = static_cast<int>(t64);
  const std::size_t n = t64 * r64;
  auto a = std::make_shared<std::vector<double>>(random_matrix(n, 1 + r64));
  auto b = std::make_shared<std::vector<double>>(random_matrix(n, 2 + r64));
  auto work = std::make_shared<std::vector<double>>(n);
  auto ipiv = std::make_shared<std::vector<lapack_int>>(r64);
  // Block column j of the t x t matrix, round-robin (always the same block when compact).
  const int columns = t / r;
  auto sweep = [columns, t64, r64](const std::shared_ptr<std::vector<double>>& m, int& j) {
    double* block = m->data() + static_cast<std::size_t>(j) * r64 * t64;
    j = (j + 1) % columns;
    return block;
  };
  if (kernel == "dgemm") {
    auto matrix = std::make_shared<std::vector<double>>(random_matrix(t64 * t64, 3 + r64));
    const int m = compact ? r : t - r;
    return {[=](benchmark::State& s) {
              int j = 0;
              for (auto _ : s) {
                double* block = sweep(matrix, j);
                if (compact) {
                  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, r, r, r, -1.0, a->data(), r, b->data(), r, 1.0,
                              block, r);
                } else {  // U12 on top of the block column, C below it
                  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, r, r, -1.0, a->data() + r, t, block, t, 1.0,
                              block + r, t);
                }
                if (interrupted()) s.SkipWithError("interrupted");
              }
              benchmark::DoNotOptimize(matrix->data());
            },
            false};
  }
  if (kernel == "dtrsm") {
    for (int j = 0; j < r; ++j) {
      for (int i = 0; i < r; ++i) (*a)[static_cast<std::size_t>(j) * t64 + i] /= r;
    }
    return {[=](benchmark::State& s) {
              for (auto _ : s) {
                for (int j = 0; j < r; ++j) {  // restore the r x r right-hand side
                  std::copy_n(b->data() + static_cast<std::size_t>(j) * t64, r,
                              work->data() + static_cast<std::size_t>(j) * t64);
                }
                double t0 = clock();
                cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, r, r, 1.0, a->data(), t,
                            work->data(), t);
                s.SetIterationTime(clock() - t0);
                if (interrupted()) s.SkipWithError("interrupted");
              }
              benchmark::DoNotOptimize(work->data());
            },
            true};
  }
  if (kernel == "dgetrf") {
    return {[=](benchmark::State& s) {
              for (auto _ : s) {
                *work = *a;
                double t0 = clock();
                lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, t, r, work->data(), t, ipiv->data());
                s.SetIterationTime(clock() - t0);
                if (info < 0) s.SkipWithError("LAPACKE_dgetrf rejected its arguments");
                if (interrupted()) s.SkipWithError("interrupted");
              }
              benchmark::DoNotOptimize(work->data());
            },
            true};
  }
  HETPERF_CHECK(kernel == "dlaswp", "unknown kernel " + kernel);
  {
    std::vector<double> lu = *a;
    LAPACKE_dgetrf(LAPACK_COL_MAJOR, t, r, lu.data(), t, ipiv->data());
  }
  auto matrix = std::make_shared<std::vector<double>>(random_matrix(t64 * t64, 4 + r64));
  return {[=](benchmark::State& s) {
            int j = 0;
            for (auto _ : s) {
              LAPACKE_dlaswp(LAPACK_COL_MAJOR, r, sweep(matrix, j), t, 1, r, ipiv->data(), 1);
              if (interrupted()) s.SkipWithError("interrupted");
            }
            benchmark::DoNotOptimize(matrix->data());
          },
          false};
}

}  // namespace

std::string KernelProbeOptions::validate() const {
  for (const auto& k : kernels) {
    if (k != "dgemm" && k != "dtrsm" && k != "dgetrf" && k != "dlaswp") {
      return "kernel '" + k + "': expected one of dgemm, dtrsm, dgetrf, dlaswp";
    }
  }
  for (auto r : blocks) {
    if (r < 1 || r > 8192) return "block size " + std::to_string(r) + ": expected 1..8192";
  }
  if (threads < 1) return "threads = " + std::to_string(threads) + ": must be at least 1";
  if (!(min_time_per_sample_s > 0)) return "min time per sample must be positive";
  if (integration_steps_per_call < 1) return "integration steps per call must be at least 1";
  if (lu_rows > 0) {
    if (lu_rows > 65536) return "LU rows " + std::to_string(lu_rows) + ": expected at most 65536";
    for (auto r : blocks) {
      if (lu_rows < 2 * r) {
        return "LU rows " + std::to_string(lu_rows) + ": expected at least twice the largest block size (" +
               std::to_string(r) + ")";
      }
    }
  }
  return repeat.validate();
}

namespace {

// Refuses, before anything is allocated, a probe whose matrices would take more than half of what this
// process may still use (MemAvailable, an address-space limit, its memory cgroup's headroom): inside a
// testbed computer of 2 GiB, --lu-rows 23552 asked for 4.4 GB and the cgroup's OOM killer ended it.
void check_memory(const std::string& what, double bytes) {
  std::optional<std::uint64_t> available = available_memory_bytes();
  if (const auto headroom = memory_headroom_of_this_process())
    available = available ? std::min(*available, *headroom) : *headroom;
  if (!available || bytes <= 0.5 * static_cast<double>(*available)) return;
  char text[200];
  std::snprintf(text, sizeof text, "%s take %.2g GiB, more than half of the %.2g GiB this process may still use",
                what.c_str(), bytes / (1 << 30), static_cast<double>(*available) / (1 << 30));
  throw InputError(std::string("kernel probe: ") + text +
                   " (MemAvailable, its memory cgroup's limit); expected fewer LU rows");
}

}  // namespace

std::vector<KernelTiming> probe_kernels(const KernelProbeOptions& o) {
  if (auto e = o.validate(); !e.empty()) throw InputError("kernel probe: " + e);
  if (o.lu_rows > 0) {
    // kernel_body's rows x rows matrix and its r-column panels, at the largest block.
    const double rows = static_cast<double>(o.lu_rows);
    const double r = o.blocks.empty() ? 0.0 : static_cast<double>(*std::max_element(o.blocks.begin(), o.blocks.end()));
    check_memory("LU rows " + std::to_string(o.lu_rows) + ": its matrices", 8 * (rows * rows + 4 * rows * r));
  }
  openblas_set_num_threads(o.threads);
  std::vector<KernelTiming> out;
  std::vector<std::uint64_t> shapes = {0};
  if (o.lu_rows > 0) shapes.push_back(o.lu_rows);
  const double total = static_cast<double>(o.kernels.size() * o.blocks.size() * shapes.size());
  for (const auto& kernel : o.kernels) {
    for (std::uint64_t rows : shapes) {
      for (auto r : o.blocks) {
        std::string name = kernel + " r=" + std::to_string(r) + (rows ? " in " + std::to_string(rows) + " rows" : "");
        if (o.on_step) o.on_step(name, static_cast<double>(out.size()) / total);
        auto [body, manual] = kernel_body(kernel, r, rows, o.cpu_share);
        out.push_back({kernel, r, rows, measure(name, body, manual, 1.0, o)});
      }
    }
  }
  return out;
}

double integrand(double x) { return 2 * std::sin(x) + std::exp(x); }

double trapezium_integral(double a, double b, std::uint64_t steps) {
  const double h = (b - a) / static_cast<double>(steps);
  double sum = (integrand(a) + integrand(b)) / 2;
  for (std::uint64_t i = 1; i < steps; ++i) sum += integrand(a + static_cast<double>(i) * h);
  return sum * h;
}

SampleSummary probe_integration_step(const KernelProbeOptions& o) {
  if (auto e = o.validate(); !e.empty()) throw InputError("kernel probe: " + e);
  const std::uint64_t steps = o.integration_steps_per_call;
  Body body = [steps](benchmark::State& s) {
    double a = 0;
    for (auto _ : s) {
      benchmark::DoNotOptimize(trapezium_integral(a, a + 1, steps));
      a += 1e-9;
      if (interrupted()) s.SkipWithError("interrupted");
    }
  };
  return measure("integration_step", body, false, static_cast<double>(steps), o);
}

std::string openblas_config() {
  const char* c = openblas_get_config();
  return c ? c : "unknown";
}

std::string openblas_corename() {
  const char* c = openblas_get_corename();
  return c ? c : "unknown";
}

std::string blas_kernel_warning(const std::string& corename, const std::string& cpu_flags) {
  auto has = [&](const std::string& flag) {
    return (" " + cpu_flags + " ").find(" " + flag + " ") != std::string::npos;
  };
  std::string core = corename;
  std::transform(core.begin(), core.end(), core.begin(), [](unsigned char ch) { return std::tolower(ch); });
  auto one_of = [&](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return core == n; });
  };
  // OpenBLAS core names by the widest vector unit their kernels use.
  const bool sse = one_of({"generic", "prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "katmai",
                           "coppermine", "northwood", "opteron", "barcelona", "bobcat"});
  const bool avx2 = one_of({"haswell", "zen", "sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"});
  std::string env = std::getenv("OPENBLAS_CORETYPE")
                        ? std::string(" (OPENBLAS_CORETYPE=") + std::getenv("OPENBLAS_CORETYPE") + " is set)"
                        : "";
  if (has("avx512f") && (sse || avx2)) {
    return "OpenBLAS runs its " + corename + " kernels on a CPU with AVX-512" + env +
           ": BLAS figures (MFLOPS, kernel times) may be well below what this machine can do";
  }
  if (has("avx2") && sse) {
    return "OpenBLAS runs its " + corename + " kernels on a CPU with AVX2" + env +
           ": BLAS figures (MFLOPS, kernel times) may be several times below what this machine can do";
  }
  return {};
}

std::string google_benchmark_version() { return HETPERF_BENCHMARK_VERSION; }

namespace {

// One copy of the LU's trailing update: dgemm of a (rows − r) × r panel by an r × r block into
// successive r-column strips of a rows × 8r matrix (leading dimension rows, each strip last touched a
// sweep ago), called until `seconds` have passed; the calls made.
std::uint64_t gemm_calls_for(std::uint64_t rows, std::uint64_t r64, double seconds) {
  const int r = static_cast<int>(r64), t = static_cast<int>(rows), strips = 8;
  const std::vector<double> panel = random_matrix(rows * r64, 11);
  std::vector<double> matrix = random_matrix(rows * r64 * strips, 12);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::uint64_t calls = 0;
  for (int j = 0; std::chrono::steady_clock::now() < until; j = (j + 1) % strips, ++calls) {
    double* strip = matrix.data() + static_cast<std::size_t>(j) * r64 * rows;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, t - r, r, r, -1.0, panel.data() + r, t, strip, t, 1.0,
                strip + r, t);
  }
  return calls;
}

// `copies` processes (forked: OpenBLAS's calls from threads of one process may serialise on its lock)
// running gemm_calls_for at once; each one's calls per second. A copy that fails to report (killed)
// is an EnvironmentError.
std::vector<double> concurrent_rates(int copies, std::uint64_t rows, std::uint64_t r, double seconds) {
  std::vector<std::unique_ptr<ChildProcess>> children;
  std::vector<int> reads;
  for (int c = 0; c < copies; ++c) {
    ReportingChild child = fork_reporting_child("kernel probe", [&](int fd) {
      const std::uint64_t calls = gemm_calls_for(rows, r, seconds);
      const ssize_t ignored = ::write(fd, &calls, sizeof calls);
      (void)ignored;
    });
    children.push_back(std::move(child.process));
    reads.push_back(child.read_fd);
  }
  std::vector<double> rates;
  for (int fd : reads) {
    std::uint64_t calls = 0;
    ssize_t got = 0;
    do got = ::read(fd, &calls, sizeof calls);
    while (got < 0 && errno == EINTR && !interrupted());
    ::close(fd);
    if (got != static_cast<ssize_t>(sizeof calls))
      throw EnvironmentError("kernel probe: a concurrent copy did not report");
    rates.push_back(static_cast<double>(calls) / seconds);
  }
  return rates;
}

}  // namespace

ConcurrencyMeasurement probe_concurrency(const KernelProbeOptions& o, int cores, int rounds, double seconds) {
  if (auto e = o.validate(); !e.empty()) throw InputError("kernel probe: " + e);
  openblas_set_num_threads(1);
  ConcurrencyMeasurement m;
  m.rows = o.lu_rows > 0 ? o.lu_rows : 2048;
  m.block = 128;
  // Each copy's panel and its matrix of 8 strips (gemm_calls_for).
  check_memory(std::to_string(cores) + " concurrent copies in " + std::to_string(m.rows) + " rows",
               cores * 8.0 * static_cast<double>(m.rows) * static_cast<double>(m.block) * 9);
  m.rates.assign(static_cast<std::size_t>(cores), {});
  std::vector<std::vector<double>> relative(static_cast<std::size_t>(cores));
  for (int round = 0; round < rounds && !interrupted(); ++round) {
    double alone = 0;
    for (int k = 1; k <= cores && !interrupted(); ++k) {
      if (o.on_step)
        o.on_step(std::to_string(k) + " concurrent copies",
                  static_cast<double>(round * cores + k - 1) / (rounds * cores));
      const std::vector<double> rates = concurrent_rates(k, m.rows, m.block, seconds);
      double mean = 0;
      for (double x : rates) mean += x / static_cast<double>(rates.size());
      if (k == 1) alone = mean;
      auto& all = m.rates[static_cast<std::size_t>(k - 1)];
      all.insert(all.end(), rates.begin(), rates.end());
      if (alone > 0) relative[static_cast<std::size_t>(k - 1)].push_back(mean / alone);
    }
  }
  for (auto& r : relative) {
    if (r.empty()) break;  // interrupted: the speeds measured so far
    std::sort(r.begin(), r.end());
    const double mid = r.size() % 2 ? r[r.size() / 2] : 0.5 * (r[r.size() / 2 - 1] + r[r.size() / 2]);
    // At most 1: copies beside others faster than alone are noise (the machine's spells).
    m.speed.push_back(std::min(1.0, mid));
  }
  return m;
}

}  // namespace hetperf::probes
