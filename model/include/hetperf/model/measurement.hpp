// The measurement file (schema hetperf.measurement/1): what `hetperf probe` measured on one machine.
// Every figure is a SampleSummary of repeated samples; probes that did not run are listed in `skipped`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/host.hpp"
#include "hetperf/model/run_usage.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf {

inline constexpr int kMeasurementSchemaVersion = 1;

// Time of one call of a BLAS/LAPACK kernel the apps use, at one block size (DPS paper sections 5-7).
struct KernelTiming {
  std::string kernel;       // "dgemm", "dtrsm", "dgetrf", "dlaswp"
  std::uint64_t block = 0;  // block size r
  std::uint64_t rows = 0;   // 0: compact r x r blocks (leading dimension r); T > 0: the block LU's shape
                            // in a T-row matrix, leading dimension T (dgemm (T−r) x r x r, dgetrf T x r,
                            // dtrsm r x r, dlaswp r columns with pivots in T rows)
  SampleSummary time_s;
};

// The LU's kernels run as k copies at once, k = 1 .. cores (probes/kernel_probe.hpp probe_concurrency).
struct ConcurrencyMeasurement {
  std::uint64_t rows = 0, block = 0;       // the dgemm's shape: (rows − block) × block × block
  std::vector<std::vector<double>> rates;  // [k − 1]: every copy's calls per second, over the rounds
  std::vector<double> speed;               // [k − 1]: s(k), relative to one copy alone, in (0, 1]
};

// The CPU scheduler's time slice as polling ranks meet it (probes/cpu_probe.hpp probe_time_slice):
// cores + 1 processes spin for `seconds`, so that at least two share a core, and each records the gaps
// in its clock, when another process ran in its place; a gap is a slice that other process had.
struct TimeSliceMeasurement {
  // The slices a measurement or a profile may give (schedulers' ticks are 1-10 ms): the probe's
  // slice_s, communication_cpu.time_slice_s and handoff_slice_s.
  static constexpr double kMinSliceS = 1e-5, kMaxSliceS = 1;
  int processes = 0;
  double seconds = 0;
  SampleSummary gap_s;  // "gaps_s": the gaps of at least 0.2 ms, every process's
  double slice_s = 0;   // their median; the profile's communication_cpu.time_slice_s where used
};

// What touching a page of data left untouched for a while costs (probes/cpu_probe.hpp
// probe_page_retouch): a buffer of `pages` pages is written once per page, the process spins for a
// gap, then writes one byte in each page again, timed; per gap the median of `rounds` rounds, the gaps
// in a seeded random order within each round; then the same with `cap_pages`.
struct PageRetouchMeasurement {
  std::uint64_t pages = 0;
  int rounds = 0;
  std::vector<double> gaps_s;                  // ascending, from 0
  std::vector<double> touch_s;                 // [gap]: the median time of the pass over the pages
  std::vector<std::vector<double>> samples_s;  // [gap]: every round's
  // The same with a buffer of `cap_pages` (0: not measured): what one rest costs at most, however
  // many pages rested.
  std::uint64_t cap_pages = 0;
  std::vector<double> cap_touch_s = {};
  std::vector<std::vector<double>> cap_samples_s = {};
};

struct CpuMeasurement {
  nlohmann::json settings = nlohmann::json::object();
  SampleSummary mips;                               // millions of instructions per second of the integer workload
  std::string mips_method;                          // how instructions were counted: "perf_event" or "estimate: ..."
  SampleSummary mflops;                             // millions of floating-point operations per second, scalar loop
  std::vector<KernelTiming> kernels;                // may be empty (not measured)
  std::optional<SampleSummary> integration_step_s;  // one trapezium step of 2 sin x + e^x
  std::optional<ConcurrencyMeasurement> concurrency = {};   // "concurrency" (absent in older files)
  std::optional<TimeSliceMeasurement> time_slice = {};      // "time_slice" (absent in older files)
  std::optional<PageRetouchMeasurement> page_retouch = {};  // "page_retouch" (absent in older files)
};

// The memory slowdown curve (UniMPP's "memo", UniMPP paper section 3): the slowdown α of a reference
// task, (t_loaded - t_idle) / t_idle, as it and other processes occupy more and more memory.
struct MemoryPoint {
  double occupied_mb = 0;  // memory held and touched by the reference task and the load processes
  SampleSummary slowdown;  // α at that occupation (a fraction, 0 = no slowdown); the median is the figure
  // Optional evidence (absent in older files):
  std::optional<double> reference_major_faults = {};  // "reference_major_faults": median per sample
  std::optional<double> cgroup_major_faults = {};     // "cgroup_major_faults": the cgroup's pgmajfault while
                                                      // the point was sampled (swap-ins of every process)
  std::optional<double> swap_used_mb = {};            // "swap_used_mb": swap in use after the point, MB
  std::optional<double> charged_mb = {};              // "charged_mb": what the cgroup charged after the point
                                                      // (memory + swap, with the kernel's own memory for the
                                                      // processes: page tables, stacks), MB
  std::optional<double> duration_s = {};              // "duration_s": time spent on the point (raising the
                                                      // occupation, warm-up, sampling), s
  std::optional<double> transient_rounds = {};        // "transient_rounds": sampled rounds discarded as the
                                                      // start-up transient after the step (MSER-5), all
                                                      // climbs; files of probes before the settling rounds
  std::optional<double> settle_rounds = {};           // "settle_rounds": untimed rounds before the timed
                                                      // ones, all climbs; at or beyond main memory only
  std::optional<double> device_read_s = {};           // "device_read_s": median time of a page read of the
                                                      // swap device (the device control) in the rounds, s
  std::optional<double> device_scale = {};            // "device_scale": the factor the point's excess was
                                                      // scaled by to the run's read time of the swap device
                                                      // (settings.device_read_s over device_read_s)
  std::optional<double> spell_correction = {};        // "spell_correction": the median α taken out for a
                                                      // slow spell of the swap device; files of probes
                                                      // before the device scale
};

struct MemoryMeasurement {
  nlohmann::json settings = nlohmann::json::object();
  std::optional<double> main_memory_mb;  // capacity of the (emulated) main memory, when known
  double swap_mb = 0;                    // swap available to the experiment
  bool swap_measured = false;            // false: the points stop below main memory
  std::string confinement;               // e.g. "cgroup v1 memory.limit_in_bytes=512M" or "none"
  std::vector<MemoryPoint> points;       // ascending occupied_mb
  std::vector<std::string> notes;
  // Optional (absent in older files):
  std::optional<SampleSummary> reference_idle_s;  // "reference_idle_s": time of the reference task, no load, s
  std::optional<double> knee_slowdown;            // "knee_slowdown": the α that defines the knee (0.15 = 15% slower)
  std::optional<double> knee_mb;                  // "knee_mb": occupation where α's interval first lies above
                                                  // knee_slowdown and stays there at the next point (medians
                                                  // interpolated linearly), MB; absent if never
};

struct DiskMeasurement {
  nlohmann::json settings = nlohmann::json::object();
  std::string directory;
  bool direct_io = false;                    // O_DIRECT was accepted by the file system
  SampleSummary write_buffered_bytes_per_s;  // write() + fdatasync() inside the timed region
  SampleSummary write_direct_bytes_per_s;    // O_DIRECT writes (or buffered + fdatasync if refused)
  SampleSummary read_direct_bytes_per_s;     // O_DIRECT reads (or reads after dropping the file's cache)
  std::vector<std::string> notes;            // fallbacks taken, with reasons
  // Optional "buffer_sweep": O_DIRECT write and read throughput per bytes per write()/read() call.
  struct BufferPoint {
    std::uint64_t buffer_bytes = 0;   // "buffer_bytes", ascending
    SampleSummary write_bytes_per_s;  // "write_bytes_per_s"
    SampleSummary read_bytes_per_s;   // "read_bytes_per_s"
  };
  std::vector<BufferPoint> buffer_sweep;
};

struct PingPongPoint {
  std::uint64_t size_bytes = 0;
  SampleSummary one_way_s;  // half the round-trip time
  // "send_s" (optional): the time a blocking send of this size took to return while its receiver
  // already waited (hetperf-pingpong --send-times), which tells how much of a large message the
  // buffers on the way take before it has arrived (the profile's network.send_buffer).
  std::optional<SampleSummary> send_s = {};
};

// LogGP parameters measured the Netgauge way (Hoefler et al., "LogGP in theory and practice"):
// overheads timed around the send and receive calls, gaps from trains of back-to-back messages.
struct LogGPParameters {
  std::uint64_t small_size_bytes = 0;  // "small_size_bytes": message size for o_s, o_r, g, L
  std::uint64_t large_size_bytes = 0;  // "large_size_bytes": second size, for G
  SampleSummary send_overhead_s;       // "send_overhead_s": o_s, time inside the send call
  SampleSummary receive_overhead_s;    // "receive_overhead_s": o_r, time inside the receive call of a
                                       // message that has already arrived
  SampleSummary gap_s;                 // "gap_s": g, time per message in a train of small messages
  double gap_per_byte_s = 0;           // "gap_per_byte_s": G, (g(large) - g(small)) / (large - small)
  double latency_s = 0;                // "latency_s": L = RTT(small)/2 - o_s - o_r (0 if negative)
};

// The hand-off of MPI ranks on an oversubscribed computer, measured by a fan-out among ranks that wait
// polling (hetperf-pingpong --fanout): rank 0 sends `bytes` (a rendezvous message) to each other rank
// in turn, round after round, once with as many ranks as cores and once with twice as many. Each
// blocking send returns, and each receiver goes on, only once that rank is scheduled in again; with
// more ranks than cores that costs the hand-off h each time. Under the simulator's rules
// (sim::RankComputer) a round takes (m - 1)(t + h) with m ranks, so
//   h = period(2 cores) / (2 cores - 1) - period(cores) / (cores - 1)
// (with one core, the second term is 0: no run without oversubscription has a peer).
struct HandoffMeasurement {
  int cores = 1;                                   // "cores": the cores the ranks shared
  std::uint64_t bytes = 0;                         // "bytes": each message
  std::optional<SampleSummary> period_at_cores_s;  // "period_at_cores_s": a round with `cores` ranks (cores > 1)
  SampleSummary period_oversubscribed_s;           // "period_oversubscribed_s": a round with 2 · cores ranks
  double handoff_s = 0;                            // "handoff_s": h (0 when the difference is negative)
};

// h from the two periods (see HandoffMeasurement).
double handoff_from_fanout(int cores, std::optional<double> period_at_cores_s, double period_oversubscribed_s);

// A blocking send to a receiver busy for `receiver_busy_s` before it posts its receive (hetperf-pingpong
// --busy-sends): well within that time, the message went out eagerly; about that time or more, it
// waited for its receiver (a rendezvous). The sizes where one turns into the other give the eager
// limit (calibrate/eager_limit.hpp).
struct BusySend {
  std::uint64_t size_bytes = 0;
  double receiver_busy_s = 0;
  SampleSummary send_s;

  // Went out eagerly: its median time under half the time its receiver was busy (a rendezvous waits
  // for the receive, so it takes at least about that whole time).
  bool eager() const { return send_s.median < 0.5 * receiver_busy_s; }
};

struct NetMeasurement {
  nlohmann::json settings = nlohmann::json::object();
  std::string transport;                // "mpi" (MPICH ping-pong under mpiexec) or "tcp"
  std::vector<std::string> hosts;       // the two endpoints; equal for loopback
  std::vector<PingPongPoint> pingpong;  // ascending size
  // Optional (absent in older files):
  std::optional<double> bandwidth_bytes_per_s;  // "bandwidth_bytes_per_s": largest size / its one-way time
  std::optional<LogGPParameters> loggp;         // "loggp"
  std::optional<HandoffMeasurement> handoff;    // "handoff" (this computer's cores, loopback only)
  std::vector<BusySend> busy_sends = {};        // "busy_sends", ascending size; may be empty

  // Between two hosts (not a loopback of one).
  bool between_hosts() const { return hosts.size() == 2 && hosts[0] != hosts[1]; }
};

struct SkippedProbe {
  std::string probe;
  std::string reason;
};

struct Measurement {
  std::string machine;  // the name the profile will give this computer (default: hostname)
  std::string hetperf_version;
  std::string command;   // the command line that produced the file
  bool complete = true;  // false when interrupted (SIGINT) before every probe finished
  HostInfo host;
  std::optional<CpuMeasurement> cpu;
  std::optional<MemoryMeasurement> memory;
  std::optional<DiskMeasurement> disk;
  std::optional<NetMeasurement> net;
  std::vector<SkippedProbe> skipped;
  // "run_usage" (optional): the probe run's wall and CPU time and the host's busy and steal shares
  // meanwhile, so that a probe taken in a slow spell of a shared machine shows it.
  std::optional<RunUsage> run_usage;
};

nlohmann::json to_json(const Measurement& m);
// Validates every field; InputError names `file` and the JSON path of the first bad field.
Measurement measurement_from_json(const nlohmann::json& j, const std::string& file);
Measurement read_measurement(const std::filesystem::path& path);

}  // namespace hetperf
