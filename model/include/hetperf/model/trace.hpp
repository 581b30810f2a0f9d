// The application trace (schema hetperf.trace/1), written the same way by the real and the simulated
// back-end: the configuration, the host, and per rank every operation with its start and end time,
// so the two can be compared operation by operation. Read back by trace_from_json and read_trace
// (calibration fits its operation models to them; `hetperf trace-view` draws them, apps/trace_view.hpp).
//
//   const hetperf::TraceFile t = hetperf::read_trace("lu-4.json");
//   for (const hetperf::TraceRank& r : t.ranks) {
//     for (const hetperf::TraceEvent& e : r.events) if (hetperf::is_compute(e.op)) busy += e.end_s - e.start_s;
//   }
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

struct TraceEvent {
  int rank = 0;
  std::string op;      // "send", "recv", "barrier", "getrf", "laswp", "trsm", "gemm", "integrate", "disk_write"
  int iteration = -1;  // the application's iteration (LU panel), -1 outside iterations
  int peer = -1;       // send/recv: the other rank
  int tag = 0;
  std::uint64_t bytes = 0;  // send/recv/disk_write: payload size
  int m = 0, n = 0, k = 0;  // kernel dimensions
  double start_s = 0, end_s = 0;
  // integrate (real back-end): the calling thread's CPU seconds inside the call, which on a computer
  // with more ranks than cores is its work without the time-slicing (calibrate's CPU-timed calls);
  // < 0: not measured (other operations, the simulated back-end, older traces).
  double cpu_s = -1;
};

nlohmann::json to_json(const TraceEvent& e);

// Whether an event computes (counts as useful work for the dynamic efficiency).
bool is_compute(std::string_view op);

struct IterationSummary {
  int iteration = 0;
  double start_s = 0, end_s = 0;
  double compute_s = 0;  // Σ compute time of all ranks in the iteration
  int ranks = 0;         // ranks taking part in it
  // Dynamic efficiency (DPS paper section 8, Figure 11): useful compute time / (ranks × iteration time).
  double efficiency() const { return end_s > start_s ? compute_s / (ranks * (end_s - start_s)) : 0; }
};

// Per-iteration summaries from the events of all ranks (events with iteration >= 0); every iteration
// counts `ranks` ranks (busy or idle), or more if more took part.
std::vector<IterationSummary> summarize_iterations(const std::vector<TraceEvent>& events, int ranks);
// The same with the ranks of each iteration given: after a node removal fewer ranks take part.
std::vector<IterationSummary> summarize_iterations(const std::vector<TraceEvent>& events,
                                                   const std::function<int(int iteration)>& ranks);

struct TraceRank {
  int rank = 0;                    // the rank within the traced communicator, >= 0
  std::vector<TraceEvent> events;  // as in the file (each event's `rank` is set to `rank`)
};

// A validated trace file. Fields other than these (run, summary, iterations, processes) are not read.
struct TraceFile {
  std::string file;              // where it was read from (for messages)
  std::string app;               // "lu", "integrate", ...
  std::string backend;           // "mpi" or "sim"
  nlohmann::json config;         // the application's configuration, as recorded (an object)
  std::vector<TraceRank> ranks;  // at least one
  std::string ranks_field;       // where they were: "ranks", or "instance_0_ranks" (integrate, real
                                 // back-end: the ranks of the first instance only)
};

// Validates `j` as a hetperf.trace/1 file; a bad field is one InputError naming `file`, the JSON path,
// the field and what was expected. Events: "op" a non-empty string, "start_s" and "end_s" finite
// numbers with end_s >= start_s; "iteration", "peer", "tag", "bytes" and "dims" [m, n, k] optional.
TraceFile trace_from_json(const nlohmann::json& j, const std::string& file);
TraceFile read_trace(const std::filesystem::path& path);

}  // namespace hetperf
