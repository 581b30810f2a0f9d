// Trace files drawn: the per-rank time accounting, the CSV and the Gantt chart (a gnuplot script with
// its data inline, run in a private temporary directory).
#include "hetperf/apps/trace_view.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/gnuplot.hpp"
#include "hetperf/model/json_node.hpp"

extern char** environ;

namespace hetperf::apps {
namespace {

constexpr std::size_t kMaxIterationLines = 200;
constexpr std::size_t kMaxIterationLabels = 40;

std::string lower_extension(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

// Colours by class: compute in greens and blues, sends orange, receives and waits red, barriers grey,
// disk brown; ops of no known class cycle through purples and pinks.
std::string op_colour(const std::string& op, std::size_t other_index) {
  static const std::map<std::string, std::string> known = {
      {"getrf", "#1b7837"},     {"laswp", "#a6dba0"}, {"trsm", "#5aae61"},   {"gemm", "#2166ac"},
      {"integrate", "#4393c3"}, {"send", "#e66101"},  {"isend", "#fdb863"},  {"recv", "#b2182b"},
      {"irecv", "#f4a582"},     {"wait", "#d6604d"},  {"barrier", "#878787"}};
  if (auto it = known.find(op); it != known.end()) return it->second;
  if (op_class(op) == OpClass::kDisk) return "#8c510a";
  static const char* others[] = {"#762a83", "#c51b7d", "#9970ab", "#de77ae", "#35978f"};
  return others[other_index % std::size(others)];
}

// Legend order: by class (compute first), then by name.
bool legend_before(const std::string& a, const std::string& b) {
  auto ka = static_cast<int>(op_class(a)), kb = static_cast<int>(op_class(b));
  return ka != kb ? ka < kb : a < b;
}

// "n=384, r=48, variant=basic": the configuration's scalar members, wrapped into lines of ~100 chars.
std::string config_text(const nlohmann::json& config) {
  std::string text, line;
  for (auto it = config.begin(); it != config.end(); ++it) {
    std::string v = it->is_string() ? it->get<std::string>() : it->dump();
    std::string item = it.key() + "=" + v;
    if (!line.empty() && line.size() + item.size() > 100) text += line + ",\n", line.clear();
    line += (line.empty() ? "" : ", ") + item;
  }
  return text + line;
}

// Runs `gnuplot script` in `dir` (no shell), its output to dir/gnuplot.log; the exit status, or -1.
int run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& script,
                const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string program = gnuplot.string(), argument = script.string();
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

OpClass op_class(const std::string& op) {
  if (is_compute(op)) return OpClass::kCompute;
  if (op == "send" || op == "isend") return OpClass::kSend;
  if (op == "recv" || op == "irecv" || op == "wait") return OpClass::kReceive;
  if (op == "barrier") return OpClass::kBarrier;
  if (op.rfind("disk_", 0) == 0) return OpClass::kDisk;
  return OpClass::kOther;
}

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::kCompute:
      return "compute";
    case OpClass::kSend:
      return "send";
    case OpClass::kReceive:
      return "receive";
    case OpClass::kBarrier:
      return "barrier";
    case OpClass::kDisk:
      return "disk";
    case OpClass::kOther:
      break;
  }
  return "other";
}

std::string TraceSelection::validate() const {
  if (max_ranks < 1) return "--ranks " + std::to_string(max_ranks) + ": expected at least 1";
  if (std::isnan(from_s) || from_s == std::numeric_limits<double>::infinity()) {
    return "--from " + csv_number(from_s) + ": expected a time in seconds";
  }
  if (std::isnan(to_s) || to_s == -std::numeric_limits<double>::infinity()) {
    return "--to " + csv_number(to_s) + ": expected a time in seconds";
  }
  if (!(from_s < to_s))
    return "--from " + csv_number(from_s) + " --to " + csv_number(to_s) + ": expected --from before --to";
  return {};
}

std::vector<TraceRank> select(const TraceFile& trace, const TraceSelection& selection) {
  std::vector<const TraceRank*> order;
  for (const TraceRank& r : trace.ranks) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const TraceRank* a, const TraceRank* b) { return a->rank < b->rank; });
  order.resize(std::min(order.size(), selection.max_ranks));
  std::vector<TraceRank> out;
  for (const TraceRank* r : order) {
    TraceRank s{r->rank, {}};
    for (const TraceEvent& e : r->events) {
      if (e.end_s >= selection.from_s && e.start_s <= selection.to_s) s.events.push_back(e);
    }
    out.push_back(std::move(s));
  }
  return out;
}

TimeWindow time_window(const std::vector<TraceRank>& ranks, const TraceSelection& selection) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const TraceRank& r : ranks) {
    for (const TraceEvent& e : r.events) lo = std::min(lo, e.start_s), hi = std::max(hi, e.end_s);
  }
  if (lo > hi) lo = hi = 0;
  TimeWindow w;
  w.from_s = std::isfinite(selection.from_s) ? selection.from_s : std::min(lo, selection.to_s);
  w.to_s = std::isfinite(selection.to_s) ? selection.to_s : std::max(hi, w.from_s);
  return w;
}

std::vector<RankUsage> rank_usage(const std::vector<TraceRank>& ranks, const TimeWindow& window) {
  std::vector<RankUsage> out;
  for (const TraceRank& r : ranks) {
    RankUsage u;
    u.rank = r.rank;
    std::vector<std::pair<double, double>> spans;
    for (const TraceEvent& e : r.events) {
      double a = std::max(e.start_s, window.from_s), b = std::min(e.end_s, window.to_s);
      if (b < a) continue;
      ++u.events;
      spans.emplace_back(a, b);
      switch (op_class(e.op)) {
        case OpClass::kCompute:
          u.compute_s += b - a;
          break;
        case OpClass::kSend:
        case OpClass::kReceive:
        case OpClass::kBarrier:
          u.communication_s += b - a;
          break;
        case OpClass::kDisk:
          u.disk_s += b - a;
          break;
        case OpClass::kOther:
          u.other_s += b - a;
          break;
      }
    }
    // Idle is what no event covers; a posted isend may overlap the events after it.
    std::sort(spans.begin(), spans.end());
    double covered = 0, end = -std::numeric_limits<double>::infinity();
    for (auto [a, b] : spans) {
      if (a > end)
        covered += b - a, end = b;
      else if (b > end)
        covered += b - end, end = b;
    }
    u.idle_s = std::max(0.0, window.length_s() - covered);
    out.push_back(u);
  }
  return out;
}

std::string events_csv(const std::vector<TraceRank>& ranks) {
  CsvWriter csv("rank,op,iteration,start_s,end_s,duration_s,peer,tag,bytes,m,n,k");
  for (const TraceRank& r : ranks) {
    for (const TraceEvent& e : r.events) {
      csv << r.rank << e.op << e.iteration << e.start_s << e.end_s << e.end_s - e.start_s << e.peer << e.tag << e.bytes
          << e.m << e.n << e.k;
      csv.end_row();
    }
  }
  return csv.str();
}

std::string GanttOptions::validate() const {
  if (std::string e = selection.validate(); !e.empty()) return e;
  std::string ext = lower_extension(out);
  if (ext != ".png" && ext != ".svg") return "--out " + out.string() + ": expected a file name ending in .png or .svg";
  if (width_px < 200 || width_px > 10000) {
    return "--width " + std::to_string(width_px) + ": expected a width in [200, 10000] pixels";
  }
  return {};
}

std::string gantt_script(const TraceFile& trace, const GanttOptions& options, const std::filesystem::path& image) {
  std::vector<TraceRank> ranks = select(trace, options.selection);
  TimeWindow window = time_window(ranks, options.selection);
  // Boxes per op (one datablock each: row, start, end), clipped to the window.
  std::map<std::string, std::string> boxes;
  std::map<int, double> iteration_start;
  for (std::size_t row = 0; row < ranks.size(); ++row) {
    for (const TraceEvent& e : ranks[row].events) {
      double a = std::max(e.start_s, window.from_s), b = std::min(e.end_s, window.to_s);
      boxes[e.op] += std::to_string(row) + " " + csv_number(a) + " " + csv_number(b) + "\n";
      if (e.iteration >= 0) {
        auto [it, fresh] = iteration_start.try_emplace(e.iteration, e.start_s);
        if (!fresh) it->second = std::min(it->second, e.start_s);
      }
    }
  }
  std::vector<std::string> ops;
  for (const auto& [op, data] : boxes) ops.push_back(op);
  std::sort(ops.begin(), ops.end(), legend_before);

  std::size_t rows = std::max<std::size_t>(ranks.size(), 1);
  int height = static_cast<int>(std::clamp<std::size_t>(150 + 26 * rows, 300, 10000));
  bool svg = lower_extension(options.out) == ".svg";
  GnuplotScript gp;
  gp.comment("Generated by hetperf trace-view from " + trace.file);
  if (svg)
    gp.terminal("svg", options.width_px, height, "dynamic noenhanced font 'sans,10'");
  else
    gp.terminal("pngcairo", options.width_px, height, "noenhanced font 'sans,9'");
  gp.output(image);
  std::size_t total = trace.ranks.size();
  std::string shown = ranks.size() == total ? std::to_string(total) + " ranks"
                                            : std::to_string(ranks.size()) + " of " + std::to_string(total) + " ranks";
  if (trace.ranks_field == "instance_0_ranks") shown += " of instance 0";
  gp << "set title "
     << gnuplot_quoted(trace.app + " (" + trace.backend + " back-end), " + shown + "\n" + config_text(trace.config))
     << "\n";
  gp << "set xlabel 'time (s)'\nset format x '%g'\nset xrange [" << csv_number(window.from_s) << ":"
     << csv_number(window.to_s > window.from_s ? window.to_s : window.from_s + 1) << "]\n";
  gp << "set yrange [" << rows << "-0.5:-0.5]\nset ytics (";
  for (std::size_t row = 0; row < ranks.size(); ++row) {
    gp << (row ? ", " : "") << gnuplot_quoted("rank " + std::to_string(ranks[row].rank)) << " " << row;
  }
  gp << ")\nset ytics scale 0\nset grid xtics\nset key outside right top title 'operation'\n"
     << "set style fill solid 1.0 border\n";
  // Iterations that start before the window are not marked.
  std::erase_if(iteration_start,
                [&](const auto& k_x) { return k_x.second < window.from_s || k_x.second > window.to_s; });
  if (options.iteration_lines && !iteration_start.empty() && iteration_start.size() <= kMaxIterationLines) {
    for (const auto& [k, x] : iteration_start) {
      gp << "set arrow from first " << csv_number(x) << ", graph 0 to first " << csv_number(x)
         << ", graph 1 nohead front dashtype 3 linecolor rgb '#303030'\n";
    }
    // Iteration numbers on the top axis, thinned so they stay legible: none closer than 1/40 of the axis.
    double gap = window.length_s() / kMaxIterationLabels, last = -std::numeric_limits<double>::infinity();
    gp << "set link x2\nset x2label 'iteration'\nset x2tics scale 0 font ',7' (";
    for (const auto& [k, x] : iteration_start) {
      if (x - last < gap) continue;
      gp << (std::isfinite(last) ? ", " : "") << gnuplot_quoted(std::to_string(k)) << " " << csv_number(x);
      last = x;
    }
    gp << ")\n";
  }
  for (std::size_t i = 0; i < ops.size(); ++i) gp.datablock("op_" + std::to_string(i), boxes[ops[i]]);
  gp << "plot \\\n";
  std::size_t other = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string colour = op_colour(ops[i], op_class(ops[i]) == OpClass::kOther ? other++ : 0);
    gp << "  $op_" << i << " using (($2+$3)/2):1:2:3:($1-0.4):($1+0.4) with boxxyerror"
       << " linecolor rgb '" << colour << "' title " << gnuplot_quoted(ops[i])
       << (i + 1 < ops.size() ? ", \\\n" : "\n");
  }
  return gp.text();
}

std::string render_gantt(const TraceFile& trace, const GanttOptions& options, const std::filesystem::path& gnuplot) {
  if (std::string e = options.validate(); !e.empty()) throw InputError(e);
  std::vector<TraceRank> ranks = select(trace, options.selection);
  bool any = std::any_of(ranks.begin(), ranks.end(), [](const TraceRank& r) { return !r.events.empty(); });
  if (!any) {
    TraceSelection everything;
    everything.max_ranks = trace.ranks.size();
    TimeWindow all = time_window(select(trace, everything), everything);
    throw InputError(trace.file + ": no events to draw between --from " + csv_number(options.selection.from_s) +
                     " and --to " + csv_number(options.selection.to_s) + " (the trace's events span " +
                     csv_number(all.from_s) + " to " + csv_number(all.to_s) + " s)");
  }
  ScratchDir dir("hetperf-gantt");
  std::filesystem::path image = dir.path() / ("gantt" + lower_extension(options.out));
  std::filesystem::path script = dir.path() / "gantt.gp", log = dir.path() / "gnuplot.log";
  write_file_atomic(script, gantt_script(trace, options, image));
  int rc = run_gnuplot(gnuplot, script, log);
  std::error_code ec;
  if (rc != 0 || std::filesystem::file_size(image, ec) == 0 || ec) {
    std::string detail;
    try {
      std::string text = read_text_file(log);
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        if (line.find_first_not_of(" \t^") != std::string::npos) detail = line;  // gnuplot's last word
      }
    } catch (const InputError&) {
    }
    throw EnvironmentError(gnuplot.string() + " failed (exit status " + std::to_string(rc) + ") drawing " +
                           options.out.string() + (detail.empty() ? "" : ": " + detail));
  }
  return read_text_file(image);
}

void draw_gantt(const TraceFile& trace, const GanttOptions& options, const std::filesystem::path& gnuplot) {
  write_file_atomic(options.out, render_gantt(trace, options, gnuplot));
}

}  // namespace hetperf::apps
