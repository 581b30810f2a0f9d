// Event-by-event simulation of UniMPP processes (UniMPP paper section 2) on the computers of a profile:
//  - processor sharing among the processes computing on a computer (over its cores), slowed by the
//    memory slowdown α of the memory resident processes occupy (eq. 2-3);
//  - FIFO disk reads and writes per computer with their waiting times (eq. 4-5);
//  - messages costing θ = lo (eq. 6-7) plus s / b, sent over a star network (DPS paper section 4): each
//    computer has a full-duplex link of bandwidth b to a crossbar that is never a bottleneck, and the
//    concurrent outgoing (resp. incoming) transfers of a computer share its link equally; transfers
//    take a share of the computer's processing capacity (profile "communication_cpu");
//  - voluntary delays lz, the response time SL (eq. 8) and its breakdown;
//  - an optional periodic load balancer that migrates computing processes, paying a migration cost,
//    with the response time of a migrated process the sum over the computers it ran on (eq. 9).
// See docs/simulator.md for the process life cycle and every modelling choice.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "hetperf/model/bind.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"

namespace hetperf::sim {

struct SimulationOptions {
  std::optional<std::string> placement;  // overrides the workload's policy
  std::optional<std::uint64_t> seed;     // overrides the workload's seed
  // Points of each computer's utilisation / memory timeline; 0 records none. The interval starts at
  // 2^-20 s and doubles whenever the run outgrows the points, so the timeline always covers the run.
  std::size_t timeline_points = 100;
  // Called with each process's result as it finishes (in finish order), for output that streams, and
  // its place in definition order (its index in Prediction::processes when they are kept).
  std::function<void(const ProcessResult&, std::uint64_t index)> on_process = {};
  // Keep every process's result in Prediction::processes (in definition order). Off, only the
  // summary (and on_process) sees them: memory then grows with the processes alive, not all of them.
  bool keep_processes = true;
  // Refuse, before simulating, a run whose estimated memory (estimate_simulation_bytes) exceeds
  // this many bytes; 0: no limit.
  std::uint64_t max_memory_bytes = 0;
  // Bytes per process the caller needs beside the simulation (its output), for the estimate.
  std::uint64_t output_bytes_per_process = 0;
};

// Runs the workload to completion on the profile it was bound to (bind(workload, profile): pins and
// message peers resolved, the figures the processes need present). InputError (naming the workload
// file and JSON path) for an unknown placement policy, a process larger than every computer's main
// plus virtual memory, a run larger than max_memory_bytes, or a memory slowdown that makes a time
// infinite or implausible. Before its first event each process is checked from its drawn figures (and
// again once placed): a draw that is not finite, a part of its work (compute, reads, writes, messages,
// sleep) that would take more than 1e12 s on the fastest computer it may run on, or more than 2e8 disk
// operations and messages in the run are refused naming the field, so no run spins through them.
// A process placed on a computer whose main plus virtual memory it does not fit beside the processes
// already there waits (FIFO) until enough of their memory is released (UniMPP paper: mm + vm bound what
// a computer holds).
Prediction simulate(const Profile& profile, const Workload& workload, const Binding& binding,
                    const std::string& workload_file, const SimulationOptions& options = {});
// Binds, then simulates.
Prediction simulate(const Profile& profile, const Workload& workload, const std::string& workload_file,
                    const SimulationOptions& options = {});

// The processes the workload makes (listed counts, generators by count or horizon / mean
// inter-arrival time) and the bytes simulating them is expected to take with `options`.
struct SimulationSize {
  std::uint64_t processes = 0;
  std::uint64_t bytes = 0;
};
SimulationSize estimate_simulation_bytes(const Profile& profile, const Workload& workload,
                                         const SimulationOptions& options = {});

}  // namespace hetperf::sim
