// The platform profile (schema hetperf.profile/1): the computers of a (heterogeneous) cluster as the
// UniMPP sextuple {pc, mm, vm, dr, dw, lo} (UniMPP paper section 2) plus cores, the memory slowdown
// function, and the network model t = l + s/b (DPS paper section 4). Produced by `hetperf calibrate`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/app_model.hpp"
#include "hetperf/model/unimpp.hpp"

namespace hetperf {

inline constexpr int kProfileSchemaVersion = 1;

// Time of one call of an LU kernel as a function of its block size r, fitted by `hetperf calibrate` on
// the probe's timings: t(r) = Σ coefficients_s[k] · r^powers[k] (e.g. dgemm: a·r³ + b·r² + c).
struct KernelModel {
  std::string kernel;                  // "dgemm", "dtrsm", "dgetrf", "dlaswp"
  std::uint64_t rows = 0;              // shape of the timings: 0 compact r x r blocks; T the block LU's
                                       // shapes in a T-row matrix (see KernelTiming); at most one model
                                       // per (kernel, rows)
  std::vector<int> powers;             // distinct, >= 0
  std::vector<double> coefficients_s;  // one per power, seconds / r^power

  double time_s(double block) const;
};

// The largest message a blocking send hands over without its receiver (eager): a larger one waits
// until its receiver has posted the receive (rendezvous). Measured by the ping-pong's sends to a busy
// receiver (calibrate::eager_limit_from_pingpong); it depends on the MPI's transport (MPICH over UCX
// on one host: 8 KiB through shared memory, beyond 1 MiB through TCP).
struct EagerLimit {
  std::uint64_t bytes = 0;
  std::string source = {};  // the measurement it was read from, and how
};

// "page_retouch" (optional, from the cpu probe's page re-touch): what a rank's first touch of a page of
// its data costs after the rank left the data untouched for a while (waiting in MPI), per page, at the
// measured ages, interpolated linearly and held beyond the last. On a virtual machine what keeps a
// page cheap to touch (its lines and translations in the caches) is lost as other guests run, the more
// the longer it rests (docs/calibration.md, "Re-touched pages").
struct PageRetouch {
  std::vector<double> ages_s;           // ascending, from 0
  std::vector<double> cost_per_page_s;  // non-decreasing, >= 0
  // "cap_s" (optional): at each age, the most the pages of one rest cost however many there are (a
  // large buffer's pass: a rest loses a bounded amount, 14-25 ms after 80-160 ms on this VM whether
  // 16384 or 65536 pages were left); empty: no bound.
  std::vector<double> cap_s = {};
  double cost_at(double age_s) const;
  double cap_at(double age_s) const;  // +inf without caps
  // What `pages` more pages cost after `before` were touched since the rest: F(before + pages) −
  // F(before), F(P) = cap · (1 − exp(−P · cost / cap)), P · cost without a cap.
  double charge_s(double age_s, double before, double pages) const;
};

nlohmann::json to_json(const PageRetouch& r);  // {"ages_s", "cost_per_page_s"[, "cap_s"]}
class JsonNode;
PageRetouch page_retouch_from_json(const JsonNode& node);  // checked; the error names node's path

// The rule that charges them, one for the simulator (apps/sim) and for the calibration that leaves the
// charge out of the traces' calls (calibrate): the data a rank's kernels touch in an iteration rested
// at least as long as the longest of the rank's waits (its operations other than kernels) over its
// previous iteration; a laswp (a block column's first kernel in an iteration) and a getrf (the panel)
// first touch their block's pages, n · ⌈m · 8 / 4096⌉ of m rows and n columns. Feed a rank's operations
// in order.
class RestClock {
 public:
  void waited(double seconds) { longest_s_ = std::max(longest_s_, seconds); }
  // The seconds a kernel `op` (m x n) of `iteration` pays.
  double charge_s(const PageRetouch& r, std::string_view op, int m, int n, int iteration);

 private:
  double longest_s_ = 0, previous_s_ = 0, pages_ = 0;
  int iteration_ = -1;
};

struct Computer {
  std::string name;
  std::string group;  // optional label ("fast"), empty when ungrouped
  int cores = 1;      // processors sharing the computer's processes
  // "core_efficiency" (optional): speed of each core's BLAS/LAPACK kernels while all cores compute,
  // relative to one core computing alone, in (0, 1] (shared caches, memory bandwidth); default 1.
  // Between one and all cores busy it is interpolated linearly. `hetperf validate` measures it.
  double core_efficiency = 1;
  // "concurrency_speed" (optional): s(k), k = 1 .. cores, the speed of each of k copies of the LU's
  // kernels running at once, relative to one alone (the cpu probe's concurrent copies); where present
  // it replaces the line through core_efficiency. Trace-calibrated models carry their own
  // (AppModels::concurrency_speed), which the simulator uses with them.
  std::vector<double> concurrency_speed = {};
  std::optional<PageRetouch> page_retouch = {};
  double mips = 0;                    // pc: capacity of one core, million instructions per second
  double main_memory_mb = 0;          // mm
  double virtual_memory_mb = 0;       // vm (swap), may be 0
  double disk_read_bytes_per_s = 0;   // dr
  double disk_write_bytes_per_s = 0;  // dw
  // "disk_sync_latency_s" (optional, 0 to 10 s): what a write flushed to the device (fdatasync) takes
  // beyond its bytes at dw, the file system's journal commit. Writers wait for it side by side (one
  // commit takes the writes of several) after their bytes have gone through the disk in turn. 0
  // (default): none. Calibrated from the disk writes of traced runs (docs/calibration.md).
  double disk_sync_latency_s = 0;
  double overhead_latency_s = 0;                     // lo = 2o + l (seed eq. 7), measured with 32-byte messages
  std::optional<unimpp::SlowdownFunction> slowdown;  // absent: memory not measured, α = 0
  // "communication_cpu" (optional, DPS paper section 4): fraction of the computer's total processing
  // capacity taken by each concurrent outgoing / incoming transfer, in [0, 1]; default 0 (free).
  double cpu_share_per_send = 0;
  double cpu_share_per_receive = 0;
  // "communication_cpu.waiting" (optional): share of a core taken by an application rank waiting in
  // MPI (a blocking receive, a send waiting for its receiver, a barrier, the final collectives), in
  // [0, 1]. MPICH waits by polling, so a waiting rank competes with computing ones like one of them
  // (1); 0 (default) when waiting is free. `hetperf validate` measures it (docs/validation.md).
  double cpu_share_waiting = 0;
  // "communication_cpu.handoff_s" (optional): extra delay of a message to a rank on this computer when
  // more ranks than cores share it: the receiver, or the sender, must first be scheduled in (a slice
  // of the CPU scheduler). 0 (default): none. `hetperf validate` measures it (docs/validation.md).
  double oversubscribed_handoff_s = 0;
  // "communication_cpu.handoff_slice_s" (optional, 1e-5 to 1 s): the CPU scheduler's slice as the
  // hand-off meets it: a rank scheduled back in keeps its core for the rest of its slice, so its next
  // release within the slice is less likely to wait for a hand-off (docs/calibration.md, "The hand-off's
  // slice"). 0 (default):
  // every release of a blocked rank waits the full hand-off.
  double handoff_slice_s = 0;
  // "communication_cpu.time_slice_s" (optional, 1e-5 to 1 s): the CPU scheduler's time slice here.
  // Given, a computer with more ranks than cores is simulated as its scheduler runs ranks that poll:
  // each rank stays on one core, and the ranks of a core take turns of one slice (docs/simulator.md,
  // "Time-sliced cores"); the hand-off then plays no part. 0 (default): processor sharing and the
  // hand-off.
  double time_slice_s = 0;
  // "local_eager_limit" (optional): the eager limit of messages between two ranks of this computer,
  // where its transport differs from the network's; absent: the network's.
  std::optional<EagerLimit> local_eager_limit = {};
  nlohmann::json fits = nlohmann::json::object();  // fit quality and provenance of each figure
  std::vector<KernelModel> kernels = {};           // may be empty (kernels not measured)
  std::optional<double> integration_step_s = {};   // one trapezium step of 2 sin x + e^x, s (> 0)
  // "app_models" (optional): operation models fitted on the applications' own traces (`hetperf
  // calibrate --trace`, hetperf/model/app_model.hpp); where present they replace the kernel models
  // and integration_step_s for the simulated back-end.
  AppModels app_models = {};
  std::string json_path = {};  // where it was read ("$.computers[1]", not written), for
                               // messages; empty: built in code

  double alpha(double occupied_mb) const { return slowdown ? slowdown->alpha(occupied_mb) : 0.0; }
};

// One protocol regime of the message time (eager, rendezvous): t = latency_s + s · seconds_per_byte
// for sizes s from min_size_bytes up to the next regime's min_size_bytes.
struct MessageRegime {
  std::uint64_t min_size_bytes = 0;
  double latency_s = 0;         // intercept of the regime's line; may be negative beyond the first regime
  double seconds_per_byte = 0;  // 1/b of the regime (LogGP G), >= 0
};

// The network between two hosts (equal for loopback), as fitted from that pair's ping-pong.
struct LinkModel {
  std::vector<std::string> hosts;      // the two endpoints, sorted
  double latency_s = 0;                // l of t = l + s/b over all sizes
  double bandwidth_bytes_per_s = 0;    // b of t = l + s/b over all sizes
  std::vector<MessageRegime> regimes;  // may be empty
  nlohmann::json fit = nlohmann::json::object();
};

// The time to redistribute a malleable job's data between p and q ranks (ReSHAPE paper section 3.2),
// t = l + s/b with s = bytes moved / min(p, q), the bytes each kept rank exchanges; fitted to measured
// redistributions by `hetperf calibrate-redistribution` (the batch scheduler prices resizes with it).
struct RedistributionModel {
  double latency_s = 0;                           // l, >= 0
  double bandwidth_bytes_per_s = 0;               // b, > 0
  nlohmann::json fit = nlohmann::json::object();  // the fit summary and its samples
};

// How much of a large message across the network a blocking send leaves in the buffers on the way
// when it returns (the sender's socket buffer, the link's queue, the receiver's socket buffer): the
// sender goes on once the rest has been streamed, t_send = l + max(0, s − bytes) · g, and the buffered
// part arrives behind it. Fitted on the applications' own sends between hosts (`hetperf calibrate
// --trace`, calibrate/send_buffer.hpp).
struct SendBuffer {
  double bytes = 0;  // >= 0
  nlohmann::json fit = nlohmann::json::object();
};

struct NetworkModel {
  double latency_s = 0;              // l of t = l + s/b
  double bandwidth_bytes_per_s = 0;  // b of t = l + s/b
  nlohmann::json fit = nlohmann::json::object();
  std::optional<RedistributionModel> redistribution = {};  // "redistribution"; absent: not measured
  std::vector<MessageRegime> regimes = {};                 // piecewise refinement of t = l + s/b; may be empty
  std::vector<LinkModel> pairs = {};                       // per pair of hosts when measured; may be empty
  // "send_buffer" (optional); absent: a send beyond the eager limit holds its sender until its
  // message has arrived (rendezvous).
  std::optional<SendBuffer> send_buffer = {};
  // "eager_limit" (optional) for messages between computers; absent: 64 KiB (MPICH's default).
  std::optional<EagerLimit> eager_limit = {};

  // Messages up to this size go out eagerly between computers: the measured limit, else 64 KiB.
  std::uint64_t eager_limit_bytes() const { return eager_limit ? eager_limit->bytes : 65536; }
};

struct ProvenanceEntry {
  std::string file;
  std::string machine;
  std::string measured_utc;
  std::string sha256;  // of the measurement file's bytes
};

struct Profile {
  std::string hetperf_version;
  std::string command;
  std::string created_utc;
  std::vector<Computer> computers;
  NetworkModel network;
  std::vector<ProvenanceEntry> provenance;
  std::vector<std::string> warnings;  // poor fits and missing data, carried to every later stage
  // "diagnostics": what calibration measured against the models it fitted (every calibration run's
  // measured time over its prediction by the mechanisms alone), for the reader; no prediction reads it.
  nlohmann::json diagnostics = nlohmann::json::object();
  std::string description = {};  // "description": free text (optional), e.g. a hand-written profile's source and units
  std::string file = {};  // the file it was read from (not written), for later stages' messages; empty: built in code

  // Index of the computer named `name`, or nullopt.
  std::optional<std::size_t> find(const std::string& name) const;
};

nlohmann::json to_json(const Profile& p);
// Validates every field, including name uniqueness; InputError names `file` and the JSON path.
// A computer entry may carry "count": N to stand for N identical computers named <name>-1 .. <name>-N.
Profile profile_from_json(const nlohmann::json& j, const std::string& file);
Profile read_profile(const std::filesystem::path& path);

}  // namespace hetperf
