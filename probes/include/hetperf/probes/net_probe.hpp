// Network probe (UniMPP's "net"): launches hetperf-pingpong under `mpiexec -n 2` (loopback, or
// between two hosts with `-hosts a,b`) and reads its per-size one-way times and LogGP parameters.
// tcp_probe.hpp gives the same ping-pong over a plain TCP connection, for machines without MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/model/process.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct NetProbeOptions {
  // Message sizes: 0 B and powers of two from 1 B to 16 MiB (UniMPP's 32 B point among them).
  std::vector<std::uint64_t> sizes_bytes = default_sizes(16u << 20);
  std::string hosts;                           // "a,b" for two machines; empty: both ranks on this machine
  std::string mpiexec = "mpiexec";             // launcher, looked up in PATH
  std::string pingpong_program;                // path of hetperf-pingpong; empty: next to the running executable
  bool loggp = true;                           // also measure the LogGP parameters
  std::uint64_t loggp_large_bytes = 1u << 20;  // second message size, for G
  // Between two hosts, also the time a blocking send of each size from this many bytes on takes to
  // return while its receiver waits (PingPongPoint::send_s); 0: not measured.
  std::uint64_t send_times_from_bytes = 64u << 10;
  // From this size on (0: none), also each size's send to a receiver busy for eight one-way times:
  // whether it went out eagerly or waited (hetperf-pingpong --busy-sends, the profile's eager limit).
  std::uint64_t busy_sends_from_bytes = 1;
  bool handoff = true;  // also the hand-off of oversubscribed ranks (on one machine)
  RepeatOptions repeat;

  // 0 and the powers of two up to `max_bytes`.
  static std::vector<std::uint64_t> default_sizes(std::uint64_t max_bytes);
};

// EnvironmentError when mpiexec or the ping-pong program is missing or fails.
NetMeasurement probe_net(const NetProbeOptions& options);

// The hand-off of ranks waiting in MPI on this computer, oversubscribed (HandoffMeasurement): the
// ping-pong program's fan-out of `bytes` (a rendezvous message; default 1 MiB) with `cores` ranks and
// with 2 · cores, on this machine (with `options.hosts`, on the first of them). EnvironmentError as
// probe_net.
HandoffMeasurement probe_handoff(const NetProbeOptions& options, int cores, std::uint64_t bytes = 1u << 20);

// Runs `argv` through run_command (model/process.hpp), capturing stdout, with the child registered for
// the probes' emergency clean-up; on SIGINT the group is terminated and Interrupted thrown.
// EnvironmentError when it cannot start.
CommandResult run_capturing_stdout(const std::vector<std::string>& argv);

// Bandwidth from the largest ping-pong size: size / one-way time; nullopt without a non-zero size.
std::optional<double> bandwidth_from_pingpong(const std::vector<PingPongPoint>& points);

// Directory of the running executable (/proc/self/exe), where hetperf-pingpong is installed beside it.
std::string executable_directory();

}  // namespace hetperf::probes
