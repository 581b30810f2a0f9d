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
#pragma once

#include <filesystem>

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

// Occupation where α first reaches `threshold` and stays there at the next point (one noisy point is
// not a knee), linearly interpolated between the points around it; nullopt when it never does.
std::optional<double> memory_knee_mb(const std::vector<MemoryPoint>& points, double threshold);

}  // namespace hetperf::probes
