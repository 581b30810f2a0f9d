// Memory probe (the seed's "memo", seed 001 sections 2-3): the slowdown α of a fixed reference task,
// α = t_loaded / t_idle - 1, as load processes hold and keep touching more and more memory, through
// main memory and into swap.
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
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct MemoryProbeOptions {
  bool confine = true;               // use a memory cgroup when possible
  double limit_mb = 256;             // emulated main memory (the cgroup limit), MB (2^20 bytes)
  double swap_mb = 256;              // swap file size when confined; 0: no swap region
  std::filesystem::path swap_directory = ".";  // where the swap file goes (a file system that allows swap)
  double step_fraction = 0.1;        // occupation step, as a fraction of main memory (finer near it)
  double max_swap_fraction = 0.75;   // highest occupation: main memory + this fraction of the swap
  double reference_mb = 16;          // working set of the reference task
  unsigned reference_passes = 16;    // passes over the working set per run of the reference task
  double holder_mb = 32;             // memory held by one load process
  double touch_interval_s = 0.25;    // pause of a load process between passes over its memory
  double fill_mb_per_s = 500;        // rate at which a load process first touches its memory, MB/s
  double swap_fill_mb_per_s = 100;   // the same once the occupation exceeds main memory (every new page
                                     // must first push another out to swap)
  double swap_safety_fraction = 0.9; // never let swap in use plus the next step exceed this share of the file
  double out_of_memory_grace_s = 2;  // a cgroup out of memory this long (v1 under_oom) ends the curve
  bool exclude_run_queue_wait = true;  // reference time without waits for a CPU (see reference_main)
  double knee_slowdown = 0.15;       // α that defines the knee (the task runs 15% slower)
  double max_slowdown = 30;          // stop climbing once α exceeds this
  double unconfined_fraction_of_available = 0.5;  // unconfined: occupation stays below this share
  double unconfined_max_mb = 2048;   // unconfined: and below this
  RepeatOptions repeat;              // applied to the reference task's time at each occupation
  StepCallback on_step;              // optional progress

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
  double writeback_mb = 0;            // pages being written out (memory.stat writeback), MB
  bool under_oom = false;             // v1 memory.oom_control under_oom: a task waits for memory
  std::uint64_t oom_events = 0;       // v2 memory.events oom (v1: 0; under_oom stands for it)
  std::uint64_t oom_kills = 0;        // v1 memory.oom_control oom_kill, v2 memory.events oom_kill
  std::uint64_t swap_limit_hits = 0;  // v1 memory.memsw.failcnt, v2 memory.swap.events max
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

// Occupation where α first reaches `threshold` and stays there at the next point (one noisy point is
// not a knee), linearly interpolated between the points around it; nullopt when it never does.
std::optional<double> memory_knee_mb(const std::vector<MemoryPoint>& points, double threshold);

}  // namespace hetperf::probes
