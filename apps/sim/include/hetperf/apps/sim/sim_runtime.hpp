// The simulated back-end (the DPS simulator's partial direct execution with NOALLOC, DPS paper
// sections 3-4 and 7, and MPI-Sim's abstraction of computation, MPI-Sim paper): every rank's coroutine
// runs inside one discrete-event simulation. compute operations take the time the kernel model gives
// for the computer the rank is mapped to, shared equally among the ranks computing there (over its
// cores); messages carry only their size. A message of at most `eager_limit_bytes` is sent eagerly
// (the sender goes on at once, the receiver gets it after the transfer); a larger one waits for the
// matching receive (rendezvous), and its sender goes on once all but `send_buffer_bytes` of it have
// been streamed. A kernel that first touches data its rank left resting while it waited pays for its
// pages (SimComputer::page_retouch). Transfers cost l + s/b on a star network: the concurrent outgoing
// (incoming) transfers of a computer share its bandwidth equally (DPS paper section 4), one per pair
// of ranks at a time (a pair's messages follow each other, as on one TCP connection).
// Several applications can run at once on one platform, each with its own ranks numbered from 0.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hetperf/apps/runtime.hpp"
#include "hetperf/apps/task.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/simulator/rank_world.hpp"

namespace hetperf::apps {

// A compute operation as the kernel model sees it.
struct KernelCall {
  std::string kernel;  // "getrf", "laswp", "trsm", "gemm", "integrate"
  int m = 0, n = 0, k = 0;
  std::uint64_t steps = 0;  // integrate
  // Ranks of the same launch (one mpiexec: the application, or its launch group) on the computer, the
  // caller among them: the regime the trace-calibrated models are chosen by.
  int colocated = 1;
};

// A computer as the ranks' world sees it (cores, disk, polling waits, hand-off, core efficiency:
// simulator/include/hetperf/simulator/rank_world.hpp), with its name.
struct SimComputer : sim::RankComputer {
  std::string name;
  // What a rank's first touch of a page of its data costs after the data rested (empty: nothing),
  // charged to its laswp and getrf calls by the rule of hetperf::RestClock (none where ranks take turns).
  PageRetouch page_retouch = {};
};

struct SimPlatform {
  std::vector<SimComputer> computers;
  double latency_s = 0;                // l of t = l + s/b
  double bandwidth_bytes_per_s = 1e9;  // b, per computer link and direction
  std::uint64_t eager_limit_bytes = 65536;
  std::vector<sim::WireRegime> regimes = {};  // the network's calibrated regimes (sim::RankPlatform)
  double send_buffer_bytes = 0;               // what a large send leaves in the buffers on the way (sim::RankPlatform)
  // Seconds the call takes on computer `c` running alone on a core.
  std::function<double(const KernelCall&, std::size_t c)> kernel_time;
  // What kernel_time noted while the platform was used (a model used outside its calibrated range),
  // once each; may be null.
  std::shared_ptr<std::set<std::string>> model_warnings = std::make_shared<std::set<std::string>>();
};

// One application run: its ranks, where they run, when it starts.
struct SimApp {
  std::string name;
  std::vector<std::size_t> mapping;  // rank i runs on computer mapping[i]
  double start_s = 0;
  // Called once per rank with that rank's runtime (holds_data() is false: buffers are null).
  std::function<Task(Runtime&)> body;
  // Ranks taking part in an iteration, for the dynamic efficiency (default: all of them).
  std::function<int(int iteration)> ranks_in_iteration = {};
  // Applications with the same launch group were started by one launcher (one mpiexec): a rank that
  // is done waits, polling, until all of them are done. -1: a group of its own.
  int launch_group = -1;
};

struct SimAppResult {
  std::string name;
  double start_s = 0, end_s = 0;             // first operation started, last one ended
  std::vector<TraceEvent> events;            // in completion order; empty unless keep_events
  std::vector<IterationSummary> iterations;  // from every event, kept or not
};

struct SimOptions {
  // Keep every operation (needed for a trace); off, a run of millions of operations keeps only the
  // per-iteration summaries.
  bool keep_events = true;
};

struct SimRunResult {
  double makespan_s = 0;
  std::vector<SimAppResult> apps;
  std::vector<TraceEvent> events;  // simulate_app: the one app's events
  std::uint64_t simulation_events = 0;
};

SimRunResult simulate_apps(const SimPlatform& platform, const std::vector<SimApp>& apps,
                           const SimOptions& options = {});

// One application, starting at 0, every event kept.
SimRunResult simulate_app(const SimPlatform& platform, const std::vector<std::size_t>& mapping,
                          const std::function<Task(Runtime&)>& app);

}  // namespace hetperf::apps
