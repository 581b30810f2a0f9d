// The probe suite: runs the selected probes on this machine and assembles one measurement file.
// A probe that cannot run here is recorded in `skipped` with the reason, and the suite goes on.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/cpu_probe.hpp"
#include "hetperf/probes/disk_probe.hpp"
#include "hetperf/probes/net_probe.hpp"

namespace hetperf::probes {

inline const std::set<std::string> kProbeNames = {"cpu", "disk", "net"};

struct SuiteOptions {
  std::set<std::string> only = kProbeNames;  // which probes run
  std::string machine;                       // name in the profile; empty: the hostname
  std::string command;                       // recorded for provenance
  CpuProbeOptions cpu;
  DiskProbeOptions disk;
  NetProbeOptions net;

  // Settings for a short run (`--quick`): fewer samples, smaller files, shorter caps.
  static SuiteOptions quick();
};

// `progress` receives one line per step ("cpu: measuring MIPS").
Measurement run_probe_suite(const SuiteOptions& options, const std::function<void(const std::string&)>& progress);

}  // namespace hetperf::probes
