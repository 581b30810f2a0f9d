// The probe suite: runs the selected probes on this machine and assembles one measurement file.
// A probe that cannot run here is recorded in `skipped` with the reason, and the suite goes on.
// On SIGINT/SIGTERM the probe in progress stops, what it created is removed, and the suite returns
// what was measured so far with `complete = false` (the caller writes it and exits 130).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/cpu_probe.hpp"
#include "hetperf/probes/disk_probe.hpp"
#include "hetperf/probes/memory_probe.hpp"
#include "hetperf/probes/net_probe.hpp"
#include "hetperf/probes/tcp_probe.hpp"

namespace hetperf::probes {

inline const std::set<std::string> kProbeNames = {"cpu", "memory", "disk", "net"};

struct SuiteOptions {
  std::set<std::string> only = kProbeNames;  // which probes run
  std::string machine;                       // name in the profile; empty: the hostname
  std::string command;                       // recorded for provenance
  CpuProbeOptions cpu;
  MemoryProbeOptions memory;
  DiskProbeOptions disk;
  NetProbeOptions net;
  std::optional<TcpProbeOptions> tcp;  // set: the net probe uses TCP (`--connect`) instead of MPI

  // Settings for a short run (`--quick`): fewer samples, smaller files, shorter caps, few block sizes.
  static SuiteOptions quick();
};

// One progress report: what runs now, the fraction of the whole suite done (0..1), seconds elapsed.
struct Progress {
  std::string what;
  double fraction_done = 0;
  double elapsed_s = 0;
};

Measurement run_probe_suite(const SuiteOptions& options, const std::function<void(const Progress&)>& progress);

}  // namespace hetperf::probes
