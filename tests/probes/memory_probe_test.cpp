// Memory probe tests: the knee rule, a small unconfined run, and the cgroup ground truth (root only).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/memory_probe.hpp"

using namespace hetperf;
using namespace hetperf::probes;

namespace {

MemoryPoint point(double mb, double alpha) {
  SampleSummary s = summarize({alpha});
  return {mb, s};
}

// Names of our own leftovers: cgroups and swap files called hetperf-memory-* / .hetperf-swap.*.
int leftovers() {
  int n = 0;
  for (const char* root : {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
      if (e.path().filename().string().rfind("hetperf-memory-" + std::to_string(::getpid()), 0) == 0) ++n;
    }
  }
  std::ifstream swaps("/proc/swaps");
  std::string line;
  while (std::getline(swaps, line)) {
    if (line.find(".hetperf-swap." + std::to_string(::getpid())) != std::string::npos) ++n;
  }
  return n;
}

// A curve of a few small points: 4 MB reference task, 8 MB holders, 3 samples per point within
// `time_cap_s`; occupation rises by `step_fraction` of the capacity.
MemoryProbeOptions small_curve(double step_fraction, double time_cap_s) {
  MemoryProbeOptions o;
  o.step_fraction = step_fraction;
  o.reference_mb = 4;
  o.holder_mb = 8;
  o.cache_sweep_mb = 8;
  o.repeat.min_samples = 3;
  o.repeat.time_cap_s = time_cap_s;
  return o;
}

// The same, unconfined, under 48 MB.
MemoryProbeOptions small_unconfined_curve(double step_fraction) {
  MemoryProbeOptions o = small_curve(step_fraction, 0.2);
  o.confine = false;
  o.unconfined_max_mb = 48;
  return o;
}

}  // namespace

MemoryPoint point_with(double mb, std::vector<double> alphas, double faults) {
  MemoryPoint p{mb, summarize(std::move(alphas))};
  p.reference_major_faults = faults;
  return p;
}

TEST_CASE("probes: memory knee is interpolated where the slowdown first stays above the threshold", "[memory]") {
  std::vector<MemoryPoint> pts = {point(0, 0),      point(50, 0.02),  point(100, 0.2), point(110, 0.05),
                                  point(120, 0.05), point(130, 0.35), point(140, 0.8)};
  // 100 is a lone noisy point; the knee lies between 120 (0.05) and 130 (0.35): 120 + 10 * 0.1/0.3.
  auto knee = memory_knee_mb(pts, 0.15);
  REQUIRE(knee);
  CHECK(*knee == Approx(120 + 10.0 / 3));
  CHECK_FALSE(memory_knee_mb({point(0, 0), point(10, 0.01)}, 0.15));
}

TEST_CASE("probes: a memory knee needs the slowdown's interval above the threshold and swap-ins", "[memory]") {
  const std::vector<double> flat = {-0.05, 0, 0.02, 0.01, -0.01, 0.03, 0, 0.01, -0.02};
  const std::vector<double> slow = {0.8, 0.9, 1.0, 1.1, 0.95, 1.05, 0.85, 1.0, 0.9};  // median 0.95
  const std::vector<double> wide = {0.0, 0.1, 0.2, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0};     // median 1.6, interval from 0.1
  // Slow but without swap-ins (a busy CPU): not a knee; the knee is where faults begin, 120..130 MB.
  std::vector<MemoryPoint> pts = {point_with(10, flat, 0),  point_with(60, slow, 0),   point_with(70, slow, 0),
                                  point_with(120, flat, 0), point_with(130, slow, 12), point_with(140, slow, 40)};
  auto knee = memory_knee_mb(pts, 0.5);
  REQUIRE(knee);
  CHECK(*knee == Approx(120 + 10 * 0.5 / 0.95));  // flat's median is 0
  // A median above the threshold whose interval is not: the knee waits for the next point.
  pts = {point_with(10, flat, 0), point_with(120, wide, 5), point_with(130, slow, 12), point_with(140, slow, 40)};
  knee = memory_knee_mb(pts, 0.5);
  REQUIRE(knee);
  // Crossing between 10 (median 0) and 120 (median 1.6, first above the threshold).
  CHECK(*knee == Approx(10 + 110 * 0.5 / 1.6));
  // Older files (no fault counts): the slowdown alone decides.
  MemoryPoint old = point(130, 0.9);
  CHECK(memory_knee_mb({point(120, 0), old, point(140, 1.2)}, 0.5));
}

TEST_CASE("probes: memory probe without confinement stays small and leaves nothing behind", "[memory]") {
  MemoryProbeOptions o = small_unconfined_curve(0.5);
  MemoryMeasurement m = probe_memory(o);
  CHECK(m.confinement == "none");
  CHECK_FALSE(m.swap_measured);
  REQUIRE(m.points.size() == 2);  // the reference alone (4 MB), then 24 MB
  CHECK(m.points[0].occupied_mb == 4);
  CHECK(m.points[1].occupied_mb == Approx(24));
  REQUIRE(m.reference_idle_s);
  CHECK(m.reference_idle_s->mean > 0);
  CHECK(leftovers() == 0);
}

// KiB of this process's mappings that a fork does not copy (VmFlags "dc" in /proc/self/smaps).
double not_forked_kib() {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  double size_kib = 0, total = 0;
  while (std::getline(smaps, line)) {
    if (line.rfind("Size:", 0) == 0) size_kib = std::stod(line.substr(5));
    if (line.rfind("VmFlags:", 0) == 0 && (line + " ").find(" dc ") != std::string::npos) total += size_kib;
  }
  return total;
}

TEST_CASE("probes: the memory probe's own buffers are not copied into its load processes", "[memory]") {
  // The same-round control and the cache sweep are written every round by the probe itself. Shared
  // copy-on-write with every load process it forks, each write after a fork would copy the page: the
  // control then timed page copies (0.5 to 12 ms a round instead of 0.5, rising with the number of
  // processes), and alpha = (t - k c) / t_0 below main memory read -3.6..0.6 instead of 0 +- 0.1.
  MemoryProbeOptions o = small_unconfined_curve(0.5);
  double during = -1;
  o.on_step = [&](const std::string&, double) { during = not_forked_kib(); };
  const double before = not_forked_kib();
  probe_memory(o);
  CHECK(during - before >= (o.reference_mb + o.cache_sweep_mb) * 1024);
}

TEST_CASE("probes: an interrupted memory probe keeps the points it measured, marked incomplete", "[memory]") {
  MemoryProbeOptions o = small_unconfined_curve(0.25);
  // The signal "arrives" when the third occupation starts: two points are measured by then.
  int steps = 0;
  o.on_step = [&](const std::string&, double) {
    if (++steps == 3) set_interrupted(true);
  };
  MemoryMeasurement m = probe_memory(o);
  set_interrupted(false);
  CHECK(m.points.size() == 2);
  CHECK(m.settings["curve_complete"] == false);
  CHECK(m.settings["curve_end"] == "interrupted by a signal");
  REQUIRE_FALSE(m.notes.empty());
  CHECK_THAT(m.notes.back(), Catch::Contains("interrupted") && Catch::Contains("2 points"));
  CHECK(leftovers() == 0);
}

TEST_CASE("probes: a memory curve's points pool their rounds over the passes", "[memory]") {
  MemoryProbeOptions o = small_unconfined_curve(0.5);
  o.passes = 2;
  std::vector<std::string> steps;
  o.on_step = [&](const std::string& what, double) { steps.push_back(what); };
  MemoryMeasurement m = probe_memory(o);
  CHECK(m.settings["passes"] == 2);
  CHECK(m.settings["passes_done"] == 2);
  CHECK(m.settings["curve_complete"] == true);
  // Both occupations visited once per pass, in ascending order each time.
  REQUIRE(steps.size() == 4);
  CHECK_THAT(steps[0], Catch::StartsWith("pass 1 of 2: occupation 4 MB"));
  CHECK_THAT(steps[2], Catch::StartsWith("pass 2 of 2: occupation 4 MB"));
  REQUIRE(m.points.size() == 2);
  // Each pass takes at least 3 rounds of every point (min_samples 3 shared out, at least 3 a pass).
  for (const auto& p : m.points) CHECK(p.slowdown.n >= 6);
  CHECK(leftovers() == 0);
}

TEST_CASE("probes: a memory probe interrupted in its second pass keeps the first pass's points", "[memory]") {
  MemoryProbeOptions o = small_unconfined_curve(0.5);
  o.passes = 2;
  int steps = 0;
  o.on_step = [&](const std::string&, double) {
    if (++steps == 3) set_interrupted(true);  // the second pass's first occupation
  };
  MemoryMeasurement m = probe_memory(o);
  set_interrupted(false);
  CHECK(m.points.size() == 2);
  CHECK(m.settings["curve_complete"] == false);
  CHECK(m.settings["passes_done"] == 1);
  REQUIRE_FALSE(m.notes.empty());
  CHECK_THAT(m.notes.back(), Catch::Contains("pass 2 of 2") && Catch::Contains("2 points"));
  CHECK(leftovers() == 0);
}

TEST_CASE("probes: a control file's key value lines are read by key", "[memory]") {
  const std::string oom = "oom_kill_disable 1\nunder_oom 0\noom_kill 3\n";
  CHECK(control_file_value(oom, "oom_kill") == 3);
  CHECK(control_file_value(oom, "under_oom") == 0);
  CHECK(control_file_value(oom, "oom") == 0);  // whole keys only
  const std::string stat = "cache 0\nwriteback 8192\ntotal_writeback 16384\n";
  CHECK(control_file_value(stat, "writeback") == 8192);
  CHECK(control_file_value("", "writeback") == 0);
}

TEST_CASE("probes: occupation stops rising on OOM signs and before swap fills", "[memory]") {
  CgroupMemoryState start;
  start.oom_kills = 1;  // counters are compared with their values at the start
  start.swap_limit_hits = 5;
  CgroupMemoryState now = start;
  now.usage_mb = 100;
  // Below the 128 MB limit a 16 MB step pushes nothing out to swap.
  CHECK(occupation_stop_reason(start, now, 16, 128, 128, 0.9).empty());
  // At the limit, 16 MB more means 16 MB more swap: 90 + 16 > 0.9 * 128 = 115.2 stops, 80 + 16 does not.
  now.usage_mb = 128;
  now.swap_mb = 80;
  CHECK(occupation_stop_reason(start, now, 16, 128, 128, 0.9).empty());
  now.swap_mb = 100;
  CHECK_THAT(occupation_stop_reason(start, now, 16, 128, 128, 0.9), Catch::Contains("swap nearly full"));
  now.swap_mb = 0;
  auto oom = now;
  oom.under_oom = true;
  CHECK_THAT(occupation_stop_reason(start, oom, 16, 128, 128, 0.9), Catch::Contains("out of memory"));
  auto killed = now;
  killed.oom_kills = 2;
  CHECK_THAT(occupation_stop_reason(start, killed, 16, 128, 128, 0.9), Catch::Contains("OOM killer"));
  auto v2 = now;
  v2.oom_events = 1;
  CHECK_THAT(occupation_stop_reason(start, v2, 16, 128, 128, 0.9), Catch::Contains("OOM killer"));
  auto full = now;
  full.swap_limit_hits = 6;
  CHECK_THAT(occupation_stop_reason(start, full, 16, 128, 128, 0.9), Catch::Contains("memory+swap limit"));
}

TEST_CASE("probes: a round's alpha takes out the control and scales to the run's swap device read", "[memory]") {
  // t = 2.0 ms, c = 0.5 ms, k = 1.1, t_0 = 0.55 ms: alpha = (2.0 - 0.55) / 0.55.
  const double plain = (2.0e-3 - 1.1 * 0.5e-3) / 0.55e-3;
  CHECK(memory_round_alpha(2.0e-3, 0.5e-3, 1.1, 0.55e-3, 1) == Approx(plain));
  // The point's reads took 90 µs, the run's reference 70: its excess counts at 70/90.
  CHECK(memory_device_scale(90e-6, 70e-6) == Approx(70.0 / 90.0));
  CHECK(memory_round_alpha(2.0e-3, 0.5e-3, 1.1, 0.55e-3, memory_device_scale(90e-6, 70e-6)) ==
        Approx(plain * 70.0 / 90.0));
  // Faster than the reference (the guest swapping hard): scaled up, the same way.
  CHECK(memory_device_scale(56e-6, 70e-6) == Approx(70.0 / 56.0));
  // No device control at the point or in the run: the excess as measured.
  CHECK(memory_device_scale(-1, 70e-6) == 1);
  CHECK(memory_device_scale(90e-6, -1) == 1);
  // A round faster than the control's share leaves a negative alpha, not clamped (the median decides).
  CHECK(memory_round_alpha(0.5e-3, 0.5e-3, 1.1, 0.55e-3, 0.8) == Approx(-0.05e-3 * 0.8 / 0.55e-3));
}

TEST_CASE("probes: memory probe rejects bad options", "[memory]") {
  MemoryProbeOptions o;
  o.limit_mb = 4;
  CHECK_THROWS_AS(probe_memory(o), InputError);
  for (std::size_t passes : {0, 11}) {
    MemoryProbeOptions p;
    p.passes = passes;
    CHECK_THAT(p.validate(), Catch::Contains("passes"));
  }
  MemoryProbeOptions d;
  d.device_reads_per_round = 65;
  CHECK_THAT(d.validate(), Catch::Contains("device reads per round"));
  d.device_reads_per_round = 0;
  CHECK(d.validate().empty());
  d.device_reference_quantile = 1.5;
  CHECK_THAT(d.validate(), Catch::Contains("device reference quantile"));
  d.device_reference_quantile = -0.5;
  CHECK_THAT(d.validate(), Catch::Contains("device reference quantile"));
  d.device_reference_quantile = -1;  // no scaling
  CHECK(d.validate().empty());
}

TEST_CASE("probes: ground truth: a memory cgroup limit of L MB puts the knee within 5% of L", "[memory][root]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root for a memory cgroup and a swap file");
    return;
  }
  std::string why;
  if (!find_cgroup_root("memory", &why)) {
    WARN("skipped: " << why);
    return;
  }
  // A small curve (64 MB main memory, 48 MB swap) so that the test takes seconds.
  const double limit = 64;
  MemoryProbeOptions o;
  o.limit_mb = limit;
  o.swap_mb = 48;
  o.swap_directory = HETPERF_BINARY_DIR;
  o.reference_mb = 8;
  o.holder_mb = 8;
  o.step_fraction = 0.125;
  o.max_swap_fraction = 0.5;
  o.warmup_touches_per_page = 0.5;
  o.repeat.time_cap_s = 0.5;
  MemoryMeasurement m = probe_memory(o);
  CHECK(leftovers() == 0);
  if (m.swap_mb == 0) {
    WARN("skipped: no swap region here: " << (m.notes.empty() ? std::string("?") : m.notes.front()));
    return;
  }
  std::string curve;
  for (const auto& p : m.points) {
    curve += std::to_string(p.occupied_mb) + ":" + std::to_string(p.slowdown.median) + " (" +
             std::to_string(p.reference_major_faults.value_or(-1)) + " faults) ";
  }
  for (const auto& n : m.notes) curve += "| " + n;
  INFO(curve);
  REQUIRE(m.main_memory_mb);
  CHECK(*m.main_memory_mb == limit);
  REQUIRE(m.knee_mb);
  CHECK(*m.knee_mb == Approx(limit).epsilon(0.05));
  // Below the limit the reference never waits for swap (no major fault: exact), and the points'
  // slowdowns carry no bias: their median stays under the knee's threshold. A probe whose control
  // was slowed by its load processes (copy-on-write after each fork) read alpha from -3.6 to 0.6
  // there, a bias of every point; one point off on its own is this machine's noise (a CI run here
  // read -0.32 at 24 MB, with no fault, between points within ±0.02), and the knee is checked above.
  std::vector<double> below;
  for (const auto& p : m.points) {
    REQUIRE(p.reference_major_faults);
    if (p.occupied_mb < 0.95 * limit) {
      CHECK(*p.reference_major_faults == 0);
      below.push_back(p.slowdown.median);
    }
  }
  REQUIRE(below.size() >= 3);
  std::nth_element(below.begin(), below.begin() + static_cast<std::ptrdiff_t>(below.size() / 2), below.end());
  CHECK(std::abs(below[below.size() / 2]) < m.knee_slowdown.value());
  REQUIRE(m.points.back().occupied_mb > 1.2 * limit);
  CHECK(*m.points.back().reference_major_faults > 0);
  CHECK(m.points.back().slowdown.median > m.knee_slowdown.value());
  // Beyond the limit every point settled first (untimed rounds until the cgroup faulted in the
  // reference's 8 MB or the time cap), and the device control read the swap file after each round:
  // a point's median read time, and the factor that scaled its excess to the run's reference read,
  // the points' 30th percentile (nearest rank): one of the points' own reads.
  const bool device = m.settings.contains("device_read_s");
  const double reference_read = device ? m.settings["device_read_s"].get<double>() : -1;
  std::size_t at_reference = 0;
  for (const auto& p : m.points) at_reference += p.device_read_s && *p.device_read_s == reference_read;
  if (device) CHECK(at_reference >= 1);
  if (!device) WARN("no device control here: " << curve);
  std::size_t beyond = 0;
  for (const auto& p : m.points) {
    if (p.occupied_mb < limit) {
      CHECK_FALSE(p.settle_rounds);
      CHECK_FALSE(p.device_scale);  // no swap-ins to scale
      continue;
    }
    ++beyond;
    REQUIRE(p.settle_rounds);
    if (beyond == 1) CHECK(*p.settle_rounds >= 1);  // the first step into swap pushed the reference out
    CHECK(p.occupied_mb != Approx(limit));          // no point on the limit itself (occupation_grid)
    if (device) {
      REQUIRE(p.device_read_s);
      CHECK(*p.device_read_s > 0);
      REQUIRE(p.device_scale);
      CHECK(*p.device_scale == Approx(reference_read / *p.device_read_s));
    }
  }
  CHECK(beyond >= 3);
}

TEST_CASE("probes: a confined memory probe stops before its swap file fills, never OOM-killed", "[memory][root]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root for a memory cgroup and a swap file");
    return;
  }
  std::string why;
  if (!find_cgroup_root("memory", &why)) {
    WARN("skipped: " << why);
    return;
  }
  // The grid climbs to 64 + 0.9 * 48 MB, but at most half of the 48 MB swap file may be used: the
  // curve must end early for want of swap, with the points before kept and nothing left behind.
  MemoryProbeOptions o = small_curve(0.25, 0.3);
  o.limit_mb = 64;
  o.swap_mb = 48;
  o.swap_directory = HETPERF_BINARY_DIR;
  o.max_swap_fraction = 0.9;
  o.swap_safety_fraction = 0.5;
  MemoryMeasurement m = probe_memory(o);
  CHECK(leftovers() == 0);
  if (m.swap_mb == 0) {
    WARN("skipped: no swap region here: " << (m.notes.empty() ? std::string("?") : m.notes.front()));
    return;
  }
  std::string notes;
  for (const auto& n : m.notes) notes += n + " | ";
  INFO(notes);
  CHECK(m.settings["curve_complete"] == false);
  CHECK_THAT(notes, !Catch::Contains("OOM killer"));
  CHECK(m.points.size() >= 4);  // 0, 16, 32, 48 MB at least: main memory is measured in full
  CHECK(m.points.back().occupied_mb <= 64 + 0.5 * 48);
}

namespace {

// The id of a process that has just ended (forked, exited, reaped): what a killed probe's names carry.
pid_t ended_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

bool listed_in_proc_swaps(const std::string& path) {
  std::ifstream swaps("/proc/swaps");
  std::string line;
  while (std::getline(swaps, line)) {
    if (line.rfind(path + " ", 0) == 0 || line.rfind(path + "\t", 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("probes: the files of a probe killed outright are removed by the next probe, live ones kept", "[memory]") {
  const auto dir = std::filesystem::temp_directory_path() / ("hetperf-stale-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const pid_t dead = ended_pid();
  const auto name = [&](const std::string& prefix, pid_t pid) { return dir / (prefix + std::to_string(pid)); };
  const auto stale_disk = name(".hetperf-disk-probe.", dead);
  const auto stale_swap = name(".hetperf-swap.", dead);
  const auto stale_as_ours = name(".hetperf-disk-probe.", ::getpid());  // its pid was reused by this process
  const auto alive = name(".hetperf-swap.", 1);                         // init runs: its process lives
  const auto not_ours = dir / (".hetperf-swap." + std::to_string(dead) + "x");
  for (const auto& p : {stale_disk, stale_swap, stale_as_ours, alive, not_ours}) std::ofstream(p) << "x";
  // A live probe's file whose process this one cannot see (another host on a shared file system): its
  // lock is held.
  const ScratchFile locked(name(".hetperf-disk-probe.", ended_pid()));
  const auto lines = reclaim_stale_leftovers(dir);
  CHECK_FALSE(std::filesystem::exists(stale_disk));
  CHECK_FALSE(std::filesystem::exists(stale_swap));
  CHECK_FALSE(std::filesystem::exists(stale_as_ours));
  CHECK(std::filesystem::exists(alive));
  CHECK(std::filesystem::exists(not_ours));
  CHECK(std::filesystem::exists(locked.path()));
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  INFO(all);
  CHECK(lines.size() == 3);
  CHECK_THAT(all, Catch::Contains(stale_disk.filename().string()) && Catch::Contains(std::to_string(dead)) &&
                      Catch::Contains("no longer runs"));
  CHECK(reclaim_stale_leftovers(dir).empty());  // nothing left to do: nothing said
  std::filesystem::remove_all(dir);             // the locked file's owner then finds it gone, as after a user's rm
}

TEST_CASE("probes: a killed probe's enabled swap file and its cgroup with a member are reclaimed", "[memory][root]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root for swapon and a memory cgroup");
    return;
  }
  std::string why;
  const auto root = find_cgroup_root("memory", &why);
  if (!root) {
    WARN("skipped: " << why);
    return;
  }
  const pid_t dead = ended_pid();
  const auto dir = std::filesystem::path(HETPERF_BINARY_DIR);
  const auto swap = std::filesystem::weakly_canonical(dir) / (".hetperf-swap." + std::to_string(dead));
  {
    std::ofstream out(swap, std::ios::binary);
    std::vector<char> zeros(1 << 20, 0);
    for (int i = 0; i < 8; ++i) out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  std::filesystem::permissions(swap, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  REQUIRE(std::system(("mkswap -q " + swap.string() + " >/dev/null 2>&1").c_str()) == 0);
  if (::swapon(swap.c_str(), 0) != 0) {
    std::filesystem::remove(swap);
    WARN("skipped: swapon refused here: " << std::strerror(errno));
    return;
  }
  // The killed probe's cgroup, still holding one of its load processes.
  const auto cgroup = root->path / ("hetperf-memory-" + std::to_string(dead));
  REQUIRE(::mkdir(cgroup.c_str(), 0755) == 0);
  const pid_t member = ::fork();
  if (member == 0) {
    ::pause();
    ::_exit(0);
  }
  std::ofstream(cgroup / "cgroup.procs") << member;
  const auto lines = reclaim_stale_leftovers(dir);
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  INFO(all);
  int status = 0;
  pid_t ended = 0;
  for (int i = 0; i < 200 && ended == 0; ++i) {
    ended = ::waitpid(member, &status, WNOHANG);
    if (ended == 0) ::usleep(10000);
  }
  if (ended == 0) {  // not killed: the test fails, and its process does not outlive it
    ::kill(member, SIGKILL);
    ::waitpid(member, nullptr, 0);
  }
  CHECK(ended == member);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  CHECK_FALSE(listed_in_proc_swaps(swap.string()));
  CHECK_FALSE(std::filesystem::exists(swap));
  CHECK_FALSE(std::filesystem::exists(cgroup));
  CHECK_THAT(all,
             Catch::Contains("disabled and removed the swap file") && Catch::Contains("removed the memory cgroup"));
  // Whatever happened, nothing of the test stays.
  ::swapoff(swap.c_str());
  std::filesystem::remove(swap);
  ::rmdir(cgroup.c_str());
}
