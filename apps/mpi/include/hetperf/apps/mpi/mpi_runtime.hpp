// The real back-end: MPI over MPICH for messages, OpenBLAS/LAPACKE for the kernels, the trapezium
// loop for integration, a scratch file for disk writes. Every operation completes before it returns,
// so an application's coroutine never suspends.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "hetperf/apps/runtime.hpp"
#include "hetperf/apps/task.hpp"

namespace hetperf::apps {

class MpiRuntime final : public Runtime {
 public:
  // `scratch_dir`: where disk_write puts (and removes) its file.
  MpiRuntime(MPI_Comm comm, std::filesystem::path scratch_dir);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool holds_data() const override { return true; }
  double now() const override { return MPI_Wtime() - t0_; }
  void prepare_buffers(int ranks, const std::vector<void*>& buffers, std::uint64_t bytes) override;
  MPI_Comm comm() const { return comm_; }
  // The CPU time of this rank's integration calls, and their wall time: a rank
  // given a share of a core by the scheduler takes wall = cpu / share (time stolen by a hypervisor is
  // charged to neither task: it shows in both or in neither).
  double compute_cpu_s() const { return compute_cpu_s_; }
  double compute_wall_s() const { return compute_wall_s_; }

  // Runs a task to its end; a real back-end never suspends, so anything else is a bug.
  static void run(Task& task);

 protected:
  bool start(const Request& r, TraceEvent& event) override;

 private:
  bool issue(const Request& r, TraceEvent& event);  // the call itself
  void park(std::coroutine_handle<> h) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 0;
  double t0_ = 0;
  std::filesystem::path scratch_dir_;
  std::map<int, MPI_Request> pending_;  // isend handles not yet waited for
  double compute_cpu_s_ = 0, compute_wall_s_ = 0;
};

// Collects every rank's trace on rank 0 as JSON: [{"rank": r, "events": [...]}, ...] (empty elsewhere).
nlohmann::json gather_traces(const MpiRuntime& rt);

// Facts about the run's hosts and MPI set-up recorded in every trace: rank 0's host and usable cores
// (its CPU affinity), and every rank's host ("rank_hosts") and each host's cores ("host_cores").
// Collective: every rank calls it; the facts are on rank 0 (an empty object elsewhere).
nlohmann::json run_facts(MPI_Comm comm);

// Ends a run: on rank 0 writes the trace (hetperf.trace/1: app, backend, config, run facts, summary
// and the app-specific `trace_fields`) when `trace_file` is set, prints {app, config, summary} on
// stdout and `failure` on stderr when !ok; then every rank learns the exit status (0, or 1 when the
// result check failed) and MPI is finalised. Returns that status.
int finish_run(MPI_Comm comm, const std::string& app, const nlohmann::json& config, const nlohmann::json& summary,
               nlohmann::json trace_fields, const std::string& trace_file, bool ok, const std::string& failure);

// Parses the options on every rank (all ranks see the same arguments); on a usage error or --help,
// rank 0 prints it and every rank finalises MPI. Returns the exit code then (0 for --help, else 2).
std::optional<int> parse_on_all_ranks(CLI::App& app, int argc, char** argv);

// Prints a usage error on rank 0 and ends every rank cleanly with exit code 2.
[[noreturn]] void fail_on_all_ranks(MPI_Comm comm, const std::string& message);

}  // namespace hetperf::apps
