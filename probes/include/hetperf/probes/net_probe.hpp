// Network probe (the seed's "net"): launches hetperf-pingpong under `mpiexec -n 2` (loopback, or
// between two hosts with `-hosts a,b`) and reads its per-size one-way times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct NetProbeOptions {
  std::vector<std::uint64_t> sizes_bytes = {0, 32, 1024, 32768, 1u << 20};
  std::string hosts;                 // "a,b" for two machines; empty: both ranks on this machine
  std::string mpiexec = "mpiexec";   // launcher, looked up in PATH
  std::string pingpong_program;      // path of hetperf-pingpong; empty: next to the running executable
  RepeatOptions repeat;
};

// EnvironmentError when mpiexec or the ping-pong program is missing or fails.
NetMeasurement probe_net(const NetProbeOptions& options);

// Directory of the running executable (/proc/self/exe), where hetperf-pingpong is installed beside it.
std::string executable_directory();

}  // namespace hetperf::probes
