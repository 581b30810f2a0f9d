// Calibration in the applications' own regime: operation time models fitted on real traces of
// hetperf-lu and hetperf-integrate (hetperf.trace/1, backend "mpi"), per computer and operation, with
// the computer's concurrency speeds (hetperf/model/app_model.hpp gives the forms). The micro-benchmark
// kernel models stay for computers without traces. Nothing is fitted per rank count, size or variant.
//
// Fit: each call's concurrency is the number of its computer's ranks computing at its midpoint (the
// ranks of one host share its clock). The forms are fitted on the calls' times made alone, t_i · s(k_i),
// by weighted linear least squares minimising the relative error Σ ((t̂_i − t_i) / t_i)², so that short
// and long calls count alike (Eigen's complete orthogonal decomposition, which takes the minimum-norm
// solution where the calls do not separate every term); the speeds s(k) from the forms (Σ t̂ / Σ t of
// the memory-bound calls at k, over those at 1); in turn, from s = 1. Then each calibration run's state
// factor per operation (Σ t_i / Σ t̂_i over the run's calls) and the residuals ε_i = t_i / (t̂_i f_r) in
// bands of t̂. Calls of ranks that outnumber their computer's cores are not fitted (time-slicing: the
// simulator's processor sharing and hand-off add it); neither are their messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "hetperf/model/app_model.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

struct TraceFitOptions {
  std::string computer;             // the profile computer every trace was taken on; empty: each trace's run.host
  std::size_t values = 200;         // residual values kept per band (ResidualBand)
  std::size_t calls_per_band = 60;  // at least this many calls per residual band (at most 4 bands)
  std::uint64_t eager_limit_bytes = 65536;  // the simulator's (apps::SimPlatform): larger sends are kept
  // Per computer, its re-touched pages (Computer::page_retouch), whose charge on laswp and getrf calls
  // the simulator adds: the calls are fitted without it.
  std::map<std::string, PageRetouch> page_retouch = {};
};

// The options for traces taken on `profile`'s computers (all on `computer` unless it is empty): its
// eager limit and its computers' re-touched pages.
TraceFitOptions trace_fit_options(const Profile& profile, const std::string& computer);

// Applies each computer's re-touched pages recorded by calibrate but not applied (fits.page_retouch,
// docs/calibration.md "Re-touched pages"); returns what it applied, computer name -> curve.
nlohmann::json apply_recorded_page_retouch(Profile& profile);

// A blocking send to a rank on another host, larger than the simulator's eager limit (the sends the
// network's send buffer is fitted on, calibrate/send_buffer.hpp).
struct NetworkSend {
  std::uint64_t bytes = 0;
  double seconds = 0;       // the send call's duration
  bool after_send = false;  // the rank's previous operation was a send too: the buffers may be full
  std::string trace;
};

// A write to disk (flushed: the apps' disk_write) made while no other rank of its computer wrote.
struct DiskWrite {
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::string trace;
};

struct TraceFit {
  std::map<std::string, AppModels> by_computer;  // computer name -> its models
  std::vector<std::string> notes;                // traces or calls not used, and why
  std::vector<std::string> report;               // one line per model: calls, range, residual spread
  std::map<std::string, std::vector<std::filesystem::path>> traces_of;  // computer name -> every trace taken on it
  std::vector<NetworkSend> network_sends;                               // of the runs across hosts
  std::map<std::string, std::vector<DiskWrite>> disk_writes;            // computer name -> its lone disk writes
};

// Reads and fits the traces. InputError naming the file and field for a malformed trace, a simulated
// one (backend "sim": not a measurement), or one without its run facts (host, ranks, cores).
TraceFit fit_traces(const std::vector<std::filesystem::path>& files, const TraceFitOptions& options = {});

// Puts `fit` into `profile` (`hetperf calibrate --trace` and `hetperf validate`): each computer's
// models, its disk's flush latency (disk_sync_latency_s: the median of its writes' times beyond their
// bytes at the probed disk_write_bytes_per_s, a line in fit.report), and the network's send buffer
// (send_buffer.hpp, a line in fit.report). InputError naming the
// computer when the traces were taken on one that is not in the profile. What the models miss in each
// calibration run needs a simulation: apps/sim app_jobs.hpp calibration_diagnostics.
void apply_trace_fit(Profile& profile, TraceFit& fit);

}  // namespace hetperf::calibrate
