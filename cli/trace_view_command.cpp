// `hetperf trace-view TRACE`: an application trace (hetperf.trace/1, from hetperf-lu or
// hetperf-integrate, real or simulated) as a Gantt chart drawn by gnuplot, its events as CSV, and a
// summary of where each rank's time went.
#include <cstdio>
#include <iostream>
#include <limits>

#include "checks.hpp"
#include "commands.hpp"
#include "hetperf/apps/trace_view.hpp"
#include "hetperf/calibrate/fit_plot.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"

namespace hetperf::cli {
namespace {

struct TraceViewArgs {
  std::string trace;
  std::string out;
  std::string csv;
  std::size_t ranks = 64;
  double from_s = -std::numeric_limits<double>::infinity();
  double to_s = std::numeric_limits<double>::infinity();
  bool no_iterations = false;
  int width_px = 1200;
};

void print_summary(const hetperf::TraceFile& trace, const std::vector<hetperf::TraceRank>& ranks,
                   const apps::TimeWindow& window) {
  apps::TraceSelection everything;
  everything.max_ranks = trace.ranks.size();
  apps::TimeWindow whole = apps::time_window(apps::select(trace, everything), everything);
  std::printf("%s: %s on the %s back-end, %zu ranks, makespan %.6f s (%.6f to %.6f s)\n", trace.file.c_str(),
              trace.app.c_str(), trace.backend.c_str(), trace.ranks.size(), whole.length_s(), whole.from_s, whole.to_s);
  std::printf("window %.6f to %.6f s (%.6f s), ranks shown: %zu of %zu\n\n", window.from_s, window.to_s,
              window.length_s(), ranks.size(), trace.ranks.size());
  std::printf("%6s %8s %12s %12s %12s %12s %12s %7s\n", "rank", "events", "compute_s", "comm_s", "disk_s", "other_s",
              "idle_s", "busy%");
  for (const apps::RankUsage& u : apps::rank_usage(ranks, window)) {
    double busy = window.length_s() > 0 ? 100 * (1 - u.idle_s / window.length_s()) : 0;
    std::printf("%6d %8zu %12.6f %12.6f %12.6f %12.6f %12.6f %6.1f%%\n", u.rank, u.events, u.compute_s,
                u.communication_s, u.disk_s, u.other_s, u.idle_s, busy);
  }
}

}  // namespace

void add_trace_view_command(CLI::App& app, const std::string&, Action& action) {
  auto args = std::make_shared<TraceViewArgs>();
  CLI::App* cmd =
      app.add_subcommand("trace-view",
                         "Draw an application trace (hetperf.trace/1 from hetperf-lu or hetperf-integrate, real or "
                         "simulated) as a Gantt chart: one row per rank, one box per operation coloured by operation; "
                         "prints each rank's compute, communication and idle time.");
  cmd->add_option("trace", args->trace, "Trace file (hetperf-lu/hetperf-integrate --trace)")->required();
  cmd->add_option("-o,--out", args->out,
                  "Picture to write (atomically), .png or .svg; needs gnuplot (default: none, the summary only)");
  cmd->add_option("--csv", args->csv, "Also write the shown events as CSV, one line per event (default: none)");
  cmd->add_option("--ranks", args->ranks, "Ranks shown (the lowest numbered), one row each")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--from", args->from_s,
                  "Start of the time window shown, in the trace's seconds (default: the "
                  "first event)");
  cmd->add_option("--to", args->to_s,
                  "End of the time window shown, in the trace's seconds (default: the last "
                  "event)");
  cmd->add_flag("--no-iterations", args->no_iterations, "Do not mark where each iteration starts");
  cmd->add_option("--width", args->width_px, "Picture width in pixels, in [200, 10000]")->capture_default_str();
  cmd->callback([&action, args] {
    action = [args] {
      apps::GanttOptions gantt;
      gantt.out = args->out;
      gantt.selection.max_ranks = args->ranks;
      gantt.selection.from_s = args->from_s;
      gantt.selection.to_s = args->to_s;
      gantt.iteration_lines = !args->no_iterations;
      gantt.width_px = args->width_px;
      // Options first, then the file, then the environment: nothing is written until all are good.
      std::string error = args->out.empty() ? gantt.selection.validate() : gantt.validate();
      if (!error.empty()) throw InputError(error);
      hetperf::TraceFile trace = hetperf::read_trace(args->trace);
      std::optional<std::filesystem::path> gnuplot;
      if (!args->out.empty()) {
        gnuplot = calibrate::find_gnuplot();
        if (!gnuplot) throw EnvironmentError("gnuplot not found on PATH (install gnuplot-nox to draw the trace)");
      }
      std::vector<hetperf::TraceRank> ranks = apps::select(trace, gantt.selection);
      apps::TimeWindow window = apps::time_window(ranks, gantt.selection);
      // Both outputs claimed first, renamed together once both are complete.
      OutputSet outputs;
      AtomicFile* picture = args->out.empty() ? nullptr : &outputs.add(args->out, "--out");
      AtomicFile* csv = args->csv.empty() ? nullptr : &outputs.add(args->csv, "--csv");
      if (csv) csv->write(apps::events_csv(ranks));
      if (picture) picture->write(apps::render_gantt(trace, gantt, *gnuplot));
      outputs.commit();
      print_summary(trace, ranks, window);
      if (!args->out.empty() || !args->csv.empty()) {
        std::cout << "\nwrote " << args->out << (!args->out.empty() && !args->csv.empty() ? ", " : "") << args->csv
                  << "\n";
      }
      return 0;
    };
  });
}

}  // namespace hetperf::cli
