// CPU and kernel probe tests with small settings, and the CPU-quota ground truth (root only).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hetperf/model/error.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/cpu_probe.hpp"
#include "hetperf/probes/kernel_probe.hpp"

using namespace hetperf;
using namespace hetperf::probes;

namespace {

std::uint64_t xorshift_reference(std::uint64_t iterations, std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  for (std::uint64_t i = 0; i < iterations; ++i) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return x;
}

RepeatOptions quick_repeat() {
  RepeatOptions r;
  r.min_samples = 3;
  r.time_cap_s = 0.3;
  return r;
}

}  // namespace

TEST_CASE("probes: the integer workload computes the xorshift chain", "[cpu]") {
  for (std::uint64_t n : {0ull, 1ull, 2ull, 1000ull, 123457ull}) {
    CHECK(integer_workload(n, 42) == xorshift_reference(n, 42));
  }
  CHECK(kInstructionsPerIteration > 0);
}

TEST_CASE("probes: cpu probe with small settings gives MIPS, MFLOPS, kernels and the trapezium step", "[cpu]") {
  CpuProbeOptions o;
  o.integer_iterations = 2'000'000;
  o.float_iterations = 1'000'000;
  o.repeat = quick_repeat();
  o.kernel.blocks = {16, 64};
  o.kernel.min_time_per_sample_s = 0.002;
  o.kernel.repeat = quick_repeat();
  o.kernel.integration_steps_per_call = 1000;
  CpuMeasurement m = probe_cpu(o);
  CHECK(m.mips.mean > 10);
  CHECK(m.mflops.mean > 1);
  CHECK_FALSE(m.mips_method.empty());
  REQUIRE(m.kernels.size() == 8);
  for (const auto& k : m.kernels) {
    INFO(k.kernel << " r=" << k.block);
    CHECK(k.time_s.mean > 0);
    CHECK(k.time_s.n >= 3);
  }
  // dgemm on 64x64 does 64 times the flops of 16x16: it must take clearly longer.
  CHECK(m.kernels[1].time_s.mean > 4 * m.kernels[0].time_s.mean);
  REQUIRE(m.integration_step_s);
  CHECK(m.integration_step_s->mean > 0);
  CHECK(m.integration_step_s->mean < 1e-5);
}

TEST_CASE("probes: the trapezium rule converges to the integral of 2 sin x + e^x", "[cpu]") {
  const double exact = 2 * (1 - std::cos(1.0)) + std::exp(1.0) - 1;
  CHECK(trapezium_integral(0, 1, 1000) == Approx(exact).epsilon(1e-6));
  CHECK(integrand(0) == Approx(1.0));
}

TEST_CASE("probes: kernels timed at the LU's shapes are recorded with their rows", "[cpu]") {
  KernelProbeOptions o;
  o.blocks = {16, 32};
  o.lu_rows = 512;
  o.min_time_per_sample_s = 0.002;
  o.repeat = quick_repeat();
  std::vector<KernelTiming> k = probe_kernels(o);
  REQUIRE(k.size() == 16);  // 4 kernels x (compact, LU shape) x 2 blocks, ordered by kernel, rows, block
  CHECK(k[0].kernel == "dgemm");
  CHECK(k[0].rows == 0);
  CHECK(k[2].rows == 512);
  CHECK(k[2].block == 16);
  // dgemm (512 − 32) x 32 x 32 does 14 times the work of the compact 32^3: clearly longer.
  CHECK(k[3].time_s.median > 4 * k[1].time_s.median);
  // The panel factorisation of 512 x 32 against 32 x 32.
  CHECK(k[11].kernel == "dgetrf");
  CHECK(k[11].rows == 512);
  CHECK(k[11].time_s.median > 2 * k[9].time_s.median);
}

TEST_CASE("probes: the kernels' concurrent copies give a speed per number of copies, one alone at 1", "[cpu]") {
  KernelProbeOptions o;
  o.blocks = {64, 128};
  o.lu_rows = 512;
  const ConcurrencyMeasurement m = probe_concurrency(o, 2, 2, 0.05);
  CHECK(m.rows == 512);
  CHECK(m.block == 128);
  REQUIRE(m.speed.size() == 2);
  CHECK(m.speed[0] == 1.0);
  CHECK(m.speed[1] > 0);
  CHECK(m.speed[1] <= 1.0);
  REQUIRE(m.rates.size() == 2);
  CHECK(m.rates[0].size() == 2);  // one copy, two rounds
  CHECK(m.rates[1].size() == 4);  // two copies, two rounds
  for (const auto& per : m.rates) {
    for (double r : per) CHECK(r > 0);
  }
  // No copy is left behind: every child was reaped.
  CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
}

TEST_CASE("probes: the time-slice probe sees the gaps of processes sharing a core", "[cpu]") {
  const auto t = probe_time_slice(2, 0.5);
  // No child is left behind, measured or not.
  CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
  if (!t) {
    WARN("fewer than 10 gaps in 0.5 s: this scheduler did not time-slice 3 spinning processes on 2 cores");
    return;
  }
  CHECK(t->processes == 3);
  CHECK(t->gap_s.n >= 10);
  CHECK(t->gap_s.samples.front() >= 2e-4);
  // Schedulers' slices and ticks are 1-30 ms; a slice out of [0.2 ms, 0.1 s] would not be a slice.
  CHECK(t->slice_s >= 2e-4);
  CHECK(t->slice_s <= 0.1);
}

TEST_CASE("probes: the slice from the gaps is one slice, also when other processes queue on the core", "[cpu]") {
  // Quiet: every gap a 4 ms slice, with a few hypervisor blips below 0.5 ms.
  std::vector<double> quiet(40, 0.004);
  quiet.insert(quiet.end(), {0.0003, 0.00021, 0.0004});
  CHECK(slice_from_gaps(quiet) == Approx(0.004));
  // Busy: most gaps two or three slices, as measured here while two compilers ran.
  std::vector<double> busy;
  for (int i = 0; i < 30; ++i) busy.push_back(0.008 + 1e-5 * i);
  for (int i = 0; i < 8; ++i) busy.push_back(0.004 + 1e-5 * i);
  for (int i = 0; i < 6; ++i) busy.push_back(0.012);
  CHECK(slice_from_gaps(busy) == Approx(0.00404).margin(1e-4));
  CHECK_FALSE(slice_from_gaps({0.004, 0.004, 0.0001}));
}

TEST_CASE("probes: LU rows below twice the largest block are refused", "[cpu]") {
  KernelProbeOptions o;
  o.blocks = {64, 128};
  o.lu_rows = 200;
  CHECK_THAT(o.validate(), Catch::Contains("LU rows 200") && Catch::Contains("twice the largest block size (128)"));
  o.lu_rows = 256;
  CHECK(o.validate().empty());
}

namespace {

// Runs `body` in a forked child and returns its exit status (the child exits with body's value).
int in_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 3;
    try {
      code = body();
    } catch (...) {
      code = 4;
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

// 0 when the kernel probe at `rows` refuses with an InputError naming them, before allocating.
int refused_rows(std::uint64_t rows) {
  KernelProbeOptions o;
  o.blocks = {32};
  o.kernels = {"dgemm"};
  o.lu_rows = rows;
  try {
    probe_kernels(o);
  } catch (const InputError& e) {
    return std::string(e.what()).find("LU rows " + std::to_string(rows)) != std::string::npos ? 0 : 1;
  }
  return 2;
}

}  // namespace

TEST_CASE("probes: kernels at LU rows whose matrix exceeds half the memory allowed are refused before allocating",
          "[cpu]") {
  if (std::getenv("HETPERF_SANITIZED")) {
    WARN(
        "skipped: AddressSanitizer reserves terabytes of address space, which an RLIMIT_AS forbids (sanitized "
        "build); the memory cgroup's case below runs");
    return;
  }
  // Under a 1 GiB address-space limit, 16384 rows (a 2 GiB matrix) are refused, not allocated.
  CHECK(in_child([] {
          const rlimit one_gib{rlim_t{1} << 30, rlim_t{1} << 30};
          if (::setrlimit(RLIMIT_AS, &one_gib) != 0) return 5;
          return refused_rows(16384);
        }) == 0);
}

TEST_CASE("probes: a memory cgroup's limit bounds the kernel probe's matrices, never its OOM killer", "[cpu][root]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root for a memory cgroup");
    return;
  }
  std::string why;
  if (!find_cgroup_root("memory", &why)) {
    WARN("skipped: " << why);
    return;
  }
  const auto cg = Cgroup::create("memory", "hetperf-test-memory-" + std::to_string(::getpid()));
  cg->write(cg->version() == 1 ? "memory.limit_in_bytes" : "memory.max", std::to_string(256 << 20));
  // Inside the group the headroom is at most its limit, and 8192 rows (a 512 MiB matrix) are refused.
  CHECK(in_child([&] {
          cg->add_process(::getpid());
          const auto headroom = memory_headroom_of_this_process();
          if (!headroom || *headroom > (std::uint64_t{256} << 20)) return 6;
          return refused_rows(8192);
        }) == 0);
}

TEST_CASE("probes: kernel probe rejects unknown kernels", "[cpu]") {
  KernelProbeOptions o;
  o.kernels = {"dsyrk"};
  CHECK_THAT(o.validate(), Catch::Contains("dsyrk"));
}

namespace {

// One probe's MIPS and the share of one CPU the kernel granted it (CPU time over wall time).
struct ProbeRun {
  double mips = -1;
  double cpu_share = -1;
};

double seconds_of(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// `pairs` pairs of probes in one child process that moves itself between the groups `free` and
// `quota` (which of the pair goes first drawn from `seed`): the two probes of a pair measure the
// machine within a second of each other. Returns the free probes and the quota'd ones, pair by pair.
std::pair<std::vector<ProbeRun>, std::vector<ProbeRun>> alternating_probes(const Cgroup& free, const Cgroup& quota,
                                                                           int pairs, std::uint64_t seed) {
  const auto count = static_cast<std::size_t>(2 * pairs);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    // Highest priority: other jobs on this host must not take the CPU the quota is compared against.
    ::setpriority(PRIO_PROCESS, 0, -20);
    CpuProbeOptions o;
    o.integer_iterations = 100'000'000;  // ~0.2 s a sample, two samples a probe: several quota periods
    o.repeat.min_samples = o.repeat.max_samples = 2;
    o.repeat.warmup = 0;
    o.kernels = false;
    o.integration = false;
    o.float_iterations = 1000;
    std::vector<ProbeRun> runs(count);  // free, quota'd, free, quota'd, ...
    std::mt19937_64 order(seed);
    try {
      free.add_process(::getpid());
      probe_cpu(o);  // warm-up
      for (std::size_t pair = 0; pair < count / 2; ++pair) {
        const std::size_t first = order() % 2;
        for (std::size_t k : {first, 1 - first}) {
          (k == 0 ? free : quota).add_process(::getpid());
          const double wall0 = seconds_of(CLOCK_MONOTONIC), cpu0 = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
          ProbeRun& run = runs[2 * pair + k];
          run.mips = probe_cpu(o).mips.mean;
          run.cpu_share = (seconds_of(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (seconds_of(CLOCK_MONOTONIC) - wall0);
        }
      }
    } catch (...) {
      ::_exit(1);
    }
    const auto bytes = static_cast<ssize_t>(runs.size() * sizeof(ProbeRun));
    if (::write(fds[1], runs.data(), runs.size() * sizeof(ProbeRun)) != bytes) ::_exit(1);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::vector<ProbeRun> runs(count);
  const auto bytes = static_cast<ssize_t>(runs.size() * sizeof(ProbeRun));
  ssize_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::read(fds[0], reinterpret_cast<char*>(runs.data()) + got, static_cast<std::size_t>(bytes - got));
    if (n <= 0) break;
    got += n;
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(got == bytes);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::pair<std::vector<ProbeRun>, std::vector<ProbeRun>> out;
  for (std::size_t i = 0; i < count; i += 2) {
    out.first.push_back(runs[i]);
    out.second.push_back(runs[i + 1]);
  }
  return out;
}

}  // namespace

TEST_CASE("probes: ground truth: a 50% CPU quota halves the measured MIPS (of the CPU it grants)", "[cpu][root]") {
  if (std::getenv("HETPERF_SANITIZED")) {
    WARN(
        "skipped: an accuracy bound on timed runs, which means nothing instrumented (sanitized build); "
        "the Release pass checks it");
    return;
  }
  if (::geteuid() != 0) {
    WARN("skipped: needs root to create a cpu cgroup");
    return;
  }
  std::string why;
  auto root = find_cgroup_root("cpu", &why);
  if (!root) {
    WARN("skipped: " << why);
    return;
  }
  // The groups of an earlier run of this test that was killed outright (its PID gone) are removed
  // first: a killed test cannot remove its own.
  for (const auto& entry : std::filesystem::directory_iterator(root->path)) {
    const std::string name = entry.path().filename().string();
    for (const std::string prefix : {"hetperf-test-free-", "hetperf-test-quota-"}) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string pid = name.substr(prefix.size());
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH) remove_cgroup_directory(entry.path());
    }
  }
  // Both runs happen in a cgroup with the largest weight, one without and one with the quota: other
  // jobs on this host (in their own groups) then take no CPU from either, and only the quota differs.
  auto free_cg = Cgroup::create("cpu", "hetperf-test-free-" + std::to_string(::getpid()));
  auto cg = Cgroup::create("cpu", "hetperf-test-quota-" + std::to_string(::getpid()));
  if (cg->version() == 1) {
    free_cg->write("cpu.shares", "262144");
    cg->write("cpu.shares", "262144");
    cg->write("cpu.cfs_period_us", "100000");
    cg->write("cpu.cfs_quota_us", "50000");
  } else {
    free_cg->write("cpu.weight", "10000");
    cg->write("cpu.weight", "10000");
    cg->write("cpu.max", "50000 100000");
  }
  // This machine's speed drifts by 10-25% between runs of a few seconds (a free probe 4304 MIPS, the
  // next 5531), and a quota'd process gets at most its quota, less on a busy host. Three free and three
  // quota'd probes in turn, 2-4 s each, gave a ratio of medians of 0.45 in one CI run (the quota'd
  // ones 0.40-0.49 of the free ones), which said nothing about the probe. Here the two probes of a pair
  // run a second apart, in a seeded order; the ratio is the median of the pairs' ratios, and it is held
  // to the share of a CPU the kernel granted (the median of the pairs' ratios of CPU time over wall
  // time, 0.50 on a quiet host). The quota holds when the quota'd probes got no more than their half.
  const auto [free_runs, quota_runs] = alternating_probes(*free_cg, *cg, 7, 0x71756f7461ULL);
  std::vector<double> ratio, granted, quota_share;
  std::ostringstream runs;
  for (std::size_t i = 0; i < free_runs.size(); ++i) {
    ratio.push_back(quota_runs[i].mips / free_runs[i].mips);
    granted.push_back(quota_runs[i].cpu_share / free_runs[i].cpu_share);
    quota_share.push_back(quota_runs[i].cpu_share);
    runs << "\nfree " << free_runs[i].mips << " MIPS granted " << free_runs[i].cpu_share << " CPU, with the quota "
         << quota_runs[i].mips << " MIPS granted " << quota_runs[i].cpu_share;
  }
  INFO("pairs:" << runs.str());
  CHECK(median(quota_share) <= 0.5 + 0.02);  // the quota holds (a period's phase: ±2%)
  CHECK(median(ratio) == Approx(median(granted)).margin(0.05));
}

TEST_CASE("probes: a BLAS running kernels narrower than the CPU's vector units is named in a warning") {
  using hetperf::probes::blas_kernel_warning;
  const std::string avx512 = "fpu sse sse2 avx avx2 avx512f avx512dq";
  const std::string avx2 = "fpu sse sse2 avx avx2 fma";
  CHECK(blas_kernel_warning("Prescott", avx512).find("Prescott kernels on a CPU with AVX-512") != std::string::npos);
  CHECK(blas_kernel_warning("Haswell", avx512).find("AVX-512") != std::string::npos);
  CHECK(blas_kernel_warning("SkylakeX", avx512).empty());
  CHECK(blas_kernel_warning("Prescott", avx2).find("AVX2") != std::string::npos);
  CHECK(blas_kernel_warning("Haswell", avx2).empty());
  CHECK(blas_kernel_warning("Prescott", "fpu sse sse2 sse3").empty());  // an old CPU: the right kernel
  // The probe records the core OpenBLAS chose among the host facts.
  CHECK_FALSE(hetperf::probes::openblas_corename().empty());
}

TEST_CASE("probes: the page re-touch probe times a pass over the pages after each gap, per gap a median", "[cpu]") {
  PageRetouchOptions o;
  o.pages = 64, o.cap_pages = 256, o.rounds = 3, o.gaps_s = {0, 0.002, 0.02};
  const auto m = probe_page_retouch(o);
  REQUIRE(m);
  CHECK(m->pages == 64);
  CHECK(m->cap_pages == 256);
  REQUIRE(m->cap_touch_s.size() == 3);
  for (const auto& s : m->cap_samples_s) CHECK(s.size() == 3);
  CHECK(m->rounds == 3);
  CHECK(m->gaps_s == o.gaps_s);
  REQUIRE(m->samples_s.size() == 3);
  for (std::size_t g = 0; g < 3; ++g) {
    CHECK(m->samples_s[g].size() == 3);
    std::vector<double> s = m->samples_s[g];
    std::sort(s.begin(), s.end());
    CHECK(m->touch_s[g] == s[1]);
    // 64 one-byte writes take microseconds, cold or warm; not seconds.
    CHECK(m->touch_s[g] > 0);
    CHECK(m->touch_s[g] < 0.1);
  }
  o.gaps_s = {0.001, 0.002};
  CHECK_THROWS_AS(probe_page_retouch(o), hetperf::InputError);
}
