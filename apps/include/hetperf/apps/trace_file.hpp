// Reading an application trace (hetperf.trace/1, real or simulated back-end) back from its file, and
// what `hetperf trace-view` shows of it: where each rank's time went, the events as CSV, and a Gantt
// chart drawn by gnuplot (one row per rank, one box per operation, coloured by operation).
#pragma once

#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/apps/trace.hpp"

namespace hetperf::apps {

struct TraceRank {
  int rank = 0;                     // the rank within the traced communicator, >= 0
  std::vector<TraceEvent> events;   // as in the file (each event's `rank` is set to `rank`)
};

// A validated trace file. Fields other than these (run, summary, iterations, processes) are not read.
struct TraceFile {
  std::string file;               // where it was read from (for messages)
  std::string app;                // "lu", "integrate", ...
  std::string backend;            // "mpi" or "sim"
  nlohmann::json config;          // the application's configuration, as recorded (an object)
  std::vector<TraceRank> ranks;   // at least one
  std::string ranks_field;        // where they were: "ranks", or "instance_0_ranks" (integrate, real
                                  // back-end: the ranks of the first instance only)
};

// Validates `j` as a hetperf.trace/1 file; a bad field is one InputError naming `file`, the JSON path,
// the field and what was expected. Events: "op" a non-empty string, "start_s" and "end_s" finite
// numbers with end_s >= start_s; "iteration", "peer", "tag", "bytes" and "dims" [m, n, k] optional.
TraceFile trace_from_json(const nlohmann::json& j, const std::string& file);
TraceFile read_trace(const std::filesystem::path& path);

// What an operation is, for colours and the time accounting.
enum class OpClass { kCompute, kSend, kReceive, kBarrier, kDisk, kOther };
// compute: is_compute(op); send: send, isend; receive: recv, irecv, wait; barrier; disk: disk_*.
OpClass op_class(const std::string& op);
const char* to_string(OpClass c);

// The part of a trace that is shown: the first `max_ranks` ranks of the file and the events that
// overlap [from_s, to_s] (times in the trace's seconds; infinite bounds mean the whole trace).
struct TraceSelection {
  std::size_t max_ranks = 64;  // >= 1
  double from_s = -std::numeric_limits<double>::infinity();
  double to_s = std::numeric_limits<double>::infinity();

  // Names the bad option (--ranks, --from, --to) and its value; empty when valid.
  std::string validate() const;
};

// The selected ranks, each with only the events overlapping the window (times not clipped).
std::vector<TraceRank> select(const TraceFile& trace, const TraceSelection& selection);

// The window actually shown: the selection's bounds, with infinite ones replaced by the earliest
// start and latest end of the selected events ({0, 0} when there are none).
struct TimeWindow {
  double from_s = 0, to_s = 0;
  double length_s() const { return to_s - from_s; }
};
TimeWindow time_window(const std::vector<TraceRank>& ranks, const TraceSelection& selection);

// Where one rank's time in the window went (event times clipped to the window).
struct RankUsage {
  int rank = 0;
  std::size_t events = 0;
  double compute_s = 0;        // compute kernels
  double communication_s = 0;  // send, receive/wait and barrier
  double disk_s = 0;
  double other_s = 0;          // operations of no known class
  double idle_s = 0;           // window length minus the union of the rank's event intervals
};
std::vector<RankUsage> rank_usage(const std::vector<TraceRank>& ranks, const TimeWindow& window);

// One line per event, header "rank,op,iteration,start_s,end_s,duration_s,peer,tag,bytes,m,n,k"
// (iteration and peer -1 when absent; times with full precision).
std::string events_csv(const std::vector<TraceRank>& ranks);

struct GanttOptions {
  std::filesystem::path out;     // the picture: ".png" or ".svg" (by extension)
  TraceSelection selection;
  bool iteration_lines = true;   // a dotted line and its number where each iteration starts (up to 200)
  int width_px = 1200;           // in [200, 10000]; the height grows with the rows shown

  // Names the bad option and its value; empty when valid.
  std::string validate() const;
};

// The gnuplot script (data inline as datablocks) that draws the chart into `image`.
std::string gantt_script(const TraceFile& trace, const GanttOptions& options, const std::filesystem::path& image);

// Draws the chart with the gnuplot executable `gnuplot` and writes options.out atomically (nothing is
// left behind on failure). InputError for invalid options or an empty selection; EnvironmentError
// naming gnuplot when it fails.
void draw_gantt(const TraceFile& trace, const GanttOptions& options, const std::filesystem::path& gnuplot);
// The same picture's bytes, drawn in a scratch directory, for a caller that writes it among other outputs.
std::string render_gantt(const TraceFile& trace, const GanttOptions& options, const std::filesystem::path& gnuplot);

}  // namespace hetperf::apps
