// Memory probe (UniMPP's "memo", UniMPP paper sections 2-3): the slowdown α of a process whose memory
// competes with active occupants, as the occupation rises through main memory into swap.
//
// Method: the occupation x is the reference task's own memory plus that of load processes; all of them
// are alike ("peers"): each holds its pages and, once per round, touches a fixed number of random
// pages of its own per MB (touches_per_page), the peers in a random order each round, one at a time.
// Every page of the occupation is then equally likely to be touched next, whatever the process, so
// while x fits in main memory no touch faults and α is flat; beyond the limit L a touch finds its page
// resident with probability about L/x whatever the kernel's replacement policy, and the reference's
// time rises with the swap-ins it waits for (α ≈ c·(1 − L/x)). Per round α = (t − k·c)·(d/d_x) / t_0:
// t the reference's time, c that of a same-round control (the probe's own resident copy of the
// reference's work, timed right after it on its CPU: the machine's speed in that round), k their
// ratio below main memory without swap-ins, t_0 = k · the median control time below main memory;
// beyond main memory d_x is the point's median time of a same-round device control (page reads of
// the swap file past the page cache) and d one such time for the whole run, so that α is the
// slowdown at one speed of the swap device (its excess per swap-in is proportional to the read
// time); a point's figure is the median α of its rounds after a warm-up. At and beyond main
// memory each climb first plays untimed rounds until the cgroup has faulted in as much memory as the
// reference holds: a step into swap pushes out the oldest pages, mostly the reference's, and the
// residency settles over rounds; the curve is the settled slowdown. There the stopping rule judges
// the reference's excess over the control (α's precision), not its time, and the point samples its
// whole time cap (its swap-ins come in bursts, so rounds are not independent).
// Passes: the grid is climbed `passes` times, each from the reference alone (every process ends and a
// new reference starts between passes), and each point pools its rounds over the passes. Occupation
// only grows within a climb, so points cannot be interleaved; climbing again is the nearest thing. It
// is needed: near the knee the reference's swap-ins come in bursts tens of rounds long (the kernel
// reclaims and reactivates pages in batches), and the swap device and memory speed drift over
// seconds, so one climb's few rounds per point fell on one phase of each; single-climb curves of
// three consecutive runs differed by up to 60% at a point (2 of 3 climbs pooled: 16%).
// Below main memory the CPU caches are swept before each of its bursts, so that the reference runs
// cache-cold at every occupation: otherwise α below the limit would measure how much of its memory
// stayed in the last-level cache between rounds (alone it all does), not the occupation of main
// memory. Beyond it they are not: the sweep also evicted the kernel's structures for swap-ins and
// made each cost 1.3-4.5 times as much (docs/probes.md).
//
// Safety: run as root where a memory cgroup is available, the whole experiment (reference task and
// load processes) is confined to a cgroup whose limit is the emulated main memory (default 256 MB),
// and swap is a file the probe creates, enables (swapon), disables and removes; the cgroup's
// memory+swap limit (v1 memory.memsw.limit_in_bytes, v2 memory.swap.max) stops it from using more swap
// than that file. Otherwise the load stays below a safe fraction of MemAvailable and the swap region
// is recorded as not measured. Every process, cgroup and file is removed, also on SIGINT.
//
// Never the OOM killer: on cgroup v1 the cgroup's OOM killer is disabled (memory.oom_control), so a
// task that finds no memory waits instead of dying; the probe watches the cgroup (under_oom, OOM and
// swap-limit events, swap in use) and stops raising the occupation before swap runs out, or, when the
// cgroup stays out of memory, frees it by ending the newest load process. A curve that stops short
// (out of memory, a process lost, SIGINT) keeps the points measured before, and says so:
// settings.curve_complete = false, settings.curve_end and a note give the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct MemoryProbeOptions {
  bool confine = true;                         // use a memory cgroup when possible
  double limit_mb = 256;                       // emulated main memory (the cgroup limit), MB (2^20 bytes)
  double swap_mb = 256;                        // swap file size when confined; 0: no swap region
  std::filesystem::path swap_directory = ".";  // where the swap file goes (a file system that allows swap)
  double step_fraction = 0.1;                  // occupation step, as a fraction of main memory (finer near it)
  double max_swap_fraction = 0.75;             // highest occupation: main memory + this fraction of the swap
  double reference_mb = 16;                    // memory of the reference task (part of the occupation), MB
  double holder_mb = 32;                       // memory held by one load process, MB
  double touches_per_page = 0.25;              // random page touches per round, per page of each peer, in (0, 4]
  double warmup_touches_per_page = 1;          // rounds discarded after each step: this many touches per page,
                                               // so that the pages resident reflect the rounds, not the step
  std::uint64_t seed = 1;                      // the peers' random pages and each round's order
  std::size_t passes = 3;                      // ascents through the grid, each from the reference alone: a point's
                                               // rounds are shared out over them and pooled, so that a slow spell of
                                               // the shared machine (memory or swap device) during one ascent moves
                                               // a third of its rounds, not all of them
  double cache_sweep_mb = -1;                  // below main memory, before the reference's burst the probe writes
                                               // this much of its own memory (outside the cgroup), so that the
                                               // reference starts with cold caches and TLB and α measures memory
                                               // occupation, not whether its pages were still in the CPU's last-level
                                               // cache; -1: twice the largest CPU cache (sysfs), 0: none
  double fill_mb_per_s = 500;                  // rate at which a load process first touches its memory, MB/s
  double swap_fill_mb_per_s = 100;             // the same once the occupation exceeds main memory (every new page
                                               // must first push another out to swap)
  double swap_safety_fraction = 0.9;           // never let swap in use plus the next step exceed this share of the file
  std::size_t device_reads_per_round = 8;      // the device control: page reads of the swap file past the
                                               // page cache after each round, timed (0: none)
  double device_reference_quantile = 0.3;      // beyond main memory a point's excess is scaled to one read
                                               // time of the swap device for the whole run: this quantile of the
                                               // points' median reads (-1: no scaling). A spell only slows the
                                               // device, so this stays on its usual speed while spells cover up
                                               // to 70% of the points; and above the 2-4 highest occupations,
                                               // whose reads run 10-15% faster (the 20th percentile fell on
                                               // either side of them from run to run)
  double out_of_memory_grace_s = 2;            // a cgroup out of memory this long (v1 under_oom) ends the curve
  bool exclude_run_queue_wait = true;          // reference time without waits for a CPU (see occupant_main)
  double knee_slowdown = 0.25;                 // α that defines the knee (the task runs 25% slower): above the
                                               // ±0.1 that α wanders below the limit on a shared VM (CPU speed,
                                               // caches), far below the 2.1-3.0 half a grid step past it
  double max_slowdown = 1000;                  // stop climbing once α exceeds this
  double unconfined_fraction_of_available = 0.5;  // unconfined: occupation stays below this share
  double unconfined_max_mb = 2048;                // unconfined: and below this
  // Rounds per occupation: warm-up, then at least min_samples and at most max_samples rounds, until the
  // 95% order-statistic interval of the median reference time (at and beyond main memory: of its
  // median excess over the control) is within target_relative_half_width of it, or time_cap_s of
  // sampling (then the point is flagged imprecise). warmup is ignored: the warm-up is
  // warmup_touches_per_page.
  RepeatOptions repeat = default_repeat();
  StepCallback on_step;  // optional progress

  static RepeatOptions default_repeat() {
    RepeatOptions r;
    r.min_samples = 9;
    r.max_samples = 400;
    r.target_relative_half_width = 0.1;
    r.time_cap_s = 5;
    r.statistic = RepeatStatistic::kMedian;
    return r;
  }

  // Empty when valid, else a message naming the option and the rule it breaks.
  std::string validate() const;
};

// InputError for bad options; EnvironmentError when the experiment cannot run at all.
MemoryMeasurement probe_memory(const MemoryProbeOptions& options);

// What the experiment's cgroup reports about memory pressure (v1 or v2 control files).
struct CgroupMemoryState {
  double usage_mb = 0;                // memory charged: v1 memory.usage_in_bytes, v2 memory.current
  double swap_mb = 0;                 // swap in use: the larger of the cgroup's share (v1 memsw - usage,
                                      // v2 memory.swap.current) and the swap file's used slots (/proc/swaps)
  double charged_mb = 0;              // memory and swap charged: v1 memory.memsw.usage_in_bytes (usage alone
                                      // without swap accounting), v2 memory.current + memory.swap.current
  double writeback_mb = 0;            // pages being written out (memory.stat writeback), MB
  bool under_oom = false;             // v1 memory.oom_control under_oom: a task waits for memory
  std::uint64_t oom_events = 0;       // v2 memory.events oom (v1: 0; under_oom stands for it)
  std::uint64_t oom_kills = 0;        // v1 memory.oom_control oom_kill, v2 memory.events oom_kill
  std::uint64_t swap_limit_hits = 0;  // v1 memory.memsw.failcnt, v2 memory.swap.events max
  std::uint64_t major_faults = 0;     // memory.stat pgmajfault (v1 and v2): anonymous memory only, so
                                      // these are swap-ins
};

// The value after `key` on its "key value" line of a control file (memory.stat, memory.events,
// memory.oom_control); 0 when absent.
std::uint64_t control_file_value(const std::string& text, const std::string& key);

// Why the occupation must not rise by `next_mb` more, given the cgroup's state when the experiment
// started and now; empty when it may. Stops on any OOM sign or swap-limit hit since the start, and
// when the swap in use plus what the step would push out (beyond `limit_mb`) would exceed
// `swap_safety_fraction` of the swap file.
std::string occupation_stop_reason(const CgroupMemoryState& start, const CgroupMemoryState& now, double next_mb,
                                   double limit_mb, double swap_file_mb, double swap_safety_fraction);

// α of one round (UniMPP paper eq. 3, the method above): (t − k·c) · s / t_0 with t the reference's time, c
// the control's, k their ratio below main memory, t_0 the reference's time without pressure and s the
// point's device scale (memory_device_scale; 1 below main memory). Seconds throughout.
double memory_round_alpha(double t, double c, double k, double t0, double device_scale);

// The device scale of a point beyond main memory: d / d_x, the run's reference read time of the swap
// device over the point's median read time; 1 when either is unknown (not positive).
double memory_device_scale(double point_read_s, double reference_read_s);

// The knee: the first occupation whose slowdown interval (the 95% order-statistic interval of the
// median α, statistics.hpp median_ci95) lies above `threshold`, at that point and at the next one (one
// noisy point is not a knee), where the reference task waited for swap-ins (reference_major_faults
// > 0, when recorded: a slowdown without them comes from the CPU or its caches, not from memory
// occupation). The occupation is interpolated linearly where the medians cross the threshold, between
// that point and the last point before it that is below the threshold or had no swap-ins (clamped
// to those two points). nullopt when none.
std::optional<double> memory_knee_mb(const std::vector<MemoryPoint>& points, double threshold);

}  // namespace hetperf::probes
