// What `hetperf trace-view` shows of an application trace (hetperf/model/trace.hpp): where each rank's
// time went, the events as CSV, and a Gantt chart drawn by gnuplot (one row per rank, one box per
// operation, coloured by operation).
#pragma once

#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/trace.hpp"

namespace hetperf::apps {

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
  double other_s = 0;  // operations of no known class
  double idle_s = 0;   // window length minus the union of the rank's event intervals
};
std::vector<RankUsage> rank_usage(const std::vector<TraceRank>& ranks, const TimeWindow& window);

// One line per event, header "rank,op,iteration,start_s,end_s,duration_s,peer,tag,bytes,m,n,k"
// (iteration and peer -1 when absent; times with full precision).
std::string events_csv(const std::vector<TraceRank>& ranks);

struct GanttOptions {
  std::filesystem::path out;  // the picture: ".png" or ".svg" (by extension)
  TraceSelection selection;
  bool iteration_lines = true;  // a dotted line and its number where each iteration starts (up to 200)
  int width_px = 1200;          // in [200, 10000]; the height grows with the rows shown

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
