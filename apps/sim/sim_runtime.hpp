// The simulated back-end (issue 6; the DPS simulator's partial direct execution with NOALLOC, seed
// 003 sections 3-4 and 7, and MPI-Sim's abstraction of computation, seed 004): every rank's coroutine
// runs inside one discrete-event simulation. compute operations take the time the kernel model gives
// for the computer the rank is mapped to, shared equally among the ranks computing there (over its
// cores); messages carry only their size. A message of at most `eager_limit_bytes` is sent eagerly
// (the sender goes on at once, the receiver gets it after the transfer); a larger one waits for the
// matching receive (rendezvous). Transfers cost l + s/b on a star network: the concurrent outgoing
// (incoming) transfers of a computer share its bandwidth equally (seed 003 section 4).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetperf/apps/runtime.hpp"
#include "hetperf/apps/task.hpp"

namespace hetperf::apps {

// A compute operation as the kernel model sees it.
struct KernelCall {
  std::string kernel;  // "getrf", "laswp", "trsm", "gemm", "integrate"
  int m = 0, n = 0, k = 0;
  std::uint64_t steps = 0;  // integrate
};

struct SimComputer {
  std::string name;
  int cores = 1;
  double disk_write_bytes_per_s = 100e6;
};

struct SimPlatform {
  std::vector<SimComputer> computers;
  double latency_s = 0;                 // l of t = l + s/b
  double bandwidth_bytes_per_s = 1e9;   // b, per computer link and direction
  std::uint64_t eager_limit_bytes = 65536;
  // Seconds the call takes on computer `c` running alone on a core.
  std::function<double(const KernelCall&, std::size_t c)> kernel_time;
};

struct SimRunResult {
  double makespan_s = 0;
  std::vector<TraceEvent> events;  // all ranks, in completion order
  std::uint64_t simulation_events = 0;
};

// Runs `app` on `ranks` simulated ranks, rank i on computer mapping[i]. `app` is called once per rank
// with that rank's runtime (holds_data() is false: buffers are null and never touched).
SimRunResult simulate_app(const SimPlatform& platform, const std::vector<std::size_t>& mapping,
                          const std::function<Task(Runtime&)>& app);

}  // namespace hetperf::apps
