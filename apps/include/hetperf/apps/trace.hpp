// The application trace (schema hetperf.trace/1), written the same way by the real and the simulated
// back-end: the configuration, the host, and per rank every operation with its start and end time,
// so the two can be compared operation by operation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf::apps {

struct TraceEvent {
  int rank = 0;
  std::string op;          // "send", "recv", "barrier", "getrf", "laswp", "trsm", "gemm", "integrate", "disk_write"
  int iteration = -1;      // the application's iteration (LU panel), -1 outside iterations
  int peer = -1;           // send/recv: the other rank
  int tag = 0;
  std::uint64_t bytes = 0; // send/recv/disk_write: payload size
  int m = 0, n = 0, k = 0; // kernel dimensions
  double start_s = 0, end_s = 0;
};

nlohmann::json to_json(const TraceEvent& e);

// Whether an event computes (counts as useful work for the dynamic efficiency).
bool is_compute(std::string_view op);

struct IterationSummary {
  int iteration = 0;
  double start_s = 0, end_s = 0;
  double compute_s = 0;       // Σ compute time of all ranks in the iteration
  int ranks = 0;              // ranks taking part in it
  // Dynamic efficiency (DPS paper section 8, Figure 11): useful compute time / (ranks × iteration time).
  double efficiency() const { return end_s > start_s ? compute_s / (ranks * (end_s - start_s)) : 0; }
};

// Per-iteration summaries from the events of all ranks (events with iteration >= 0); every iteration
// counts `ranks` ranks (busy or idle), or more if more took part.
std::vector<IterationSummary> summarize_iterations(const std::vector<TraceEvent>& events, int ranks);
// The same with the ranks of each iteration given: after a node removal fewer ranks take part.
std::vector<IterationSummary> summarize_iterations(const std::vector<TraceEvent>& events,
                                                   const std::function<int(int iteration)>& ranks);

}  // namespace hetperf::apps
