// The prediction result (schema hetperf.prediction/1): what `hetperf predict` writes.
// Per process: when it arrived, started and finished, its response time SL (UniMPP paper eq. 8) and how
// much of it came from each cause; a summary over all processes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

inline constexpr int kPredictionSchemaVersion = 1;

// Where a process's response time went; the parts add up to response_s.
struct ResponseBreakdown {
  double cpu_s = 0;        // TE = mp / pc (eq. 2), the ideal computing time
  double memory_s = 0;     // TEM - TE (eq. 3), the memory slowdown
  double disk_s = 0;       // Σ bsize / d (eq. 4, 5) without waiting
  double network_s = 0;    // Σ θ (eq. 6, 7) without waiting
  double sleep_s = 0;      // lz
  double waiting_s = 0;    // sharing the processor with other processes, and queueing for disk and network
  double migration_s = 0;  // in transit between computers (load balancer's migration cost); JSON "migration", default 0
};

// One stay of a migrated process on a computer (UniMPP paper eq. 9: SL = Σ_k SL_k over these).
struct ResidenceSegment {
  std::string computer;
  double from_s = 0;  // arrival there (for the first one, the process's arrival)
  double to_s = 0;    // departure (for the last one, the finish)
};

struct ProcessResult {
  std::string name;
  std::string computer;
  double arrival_s = 0;
  double start_s = 0;
  double finish_s = 0;
  double response_s = 0;  // finish - arrival
  ResponseBreakdown breakdown;
  std::vector<ResidenceSegment> segments;  // JSON "segments", only for migrated processes; empty otherwise
};

// Per-computer occupation over time, bounded in size: point k covers [k, k+1) · interval_s from time 0.
struct ComputerTimeline {
  double interval_s = 0;
  std::vector<double> utilisation;  // mean fraction of the cores computing, in [0, 1]
  std::vector<double> memory_mb;    // mean memory held by resident processes
};

struct ComputerResult {
  std::string name;
  double busy_s = 0;          // time with at least one process computing
  double utilisation = 0;     // busy_s / makespan, in [0, 1]
  double peak_memory_mb = 0;  // highest occupied memory
  std::size_t processes = 0;  // processes placed here
  ComputerTimeline timeline;  // JSON "timeline", absent when not recorded
};

struct PredictionSummary {
  std::size_t processes = 0;
  double mean_response_s = 0;
  double median_response_s = 0;
  double p90_response_s = 0;  // nearest rank, as p95 and p99
  double p95_response_s = 0;
  double p99_response_s = 0;
  double max_response_s = 0;
  double makespan_s = 0;         // last finish - first arrival
  std::uint64_t events = 0;      // simulation events processed
  std::uint64_t migrations = 0;  // processes moved by the load balancer; JSON "migrations", default 0
};

struct Prediction {
  std::string hetperf_version;
  std::string command;
  std::string platform_file;
  std::string workload_file;
  std::string workload_name;
  std::uint64_t seed = 0;
  std::string placement;
  std::vector<ProcessResult> processes;
  std::vector<ComputerResult> computers;
  PredictionSummary summary;
  // "apps" (optional): the predicted application runs of the workload's "apps", one object each with
  // at least "name", "app" ("lu" or "integrate") and "time_s" (LU factorisation time; integration mean
  // response time), plus the run's configuration, iterations or processes, and with --samples its
  // "distribution".
  nlohmann::json apps = nlohmann::json::array();
  // "warnings" (optional): what the prediction had to assume, e.g. a trace-calibrated model used
  // outside its calibrated range.
  std::vector<std::string> warnings = {};
};

nlohmann::json to_json(const Prediction& p);
// One element of to_json's "processes".
nlohmann::json process_json(const ProcessResult& r);
// The same element as text, appended to `out` byte for byte as json_output_text writes it in the
// document (indented as an element of a top-level array; json_text.hpp), for output that streams the
// rows. InputError naming `file` and $.processes[index] for a number that is not finite.
void append_process_json_row(std::string& out, const ProcessResult& r, std::uint64_t index, const std::string& file);
Prediction prediction_from_json(const nlohmann::json& j, const std::string& file);
Prediction read_prediction(const std::filesystem::path& path);

// Fills summary statistics from `processes` (mean, median, p90/p95/p99 by nearest rank, max, makespan).
PredictionSummary summarize_responses(const std::vector<ProcessResult>& processes);
// The same from the response times alone (reordered) and the first arrival and last finish.
PredictionSummary summarize_response_times(std::vector<double>& responses_s, double first_arrival_s,
                                           double last_finish_s);

}  // namespace hetperf
