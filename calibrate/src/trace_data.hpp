// The calibration traces as the operation models' fit reads them (trace_read.cpp, for trace_fit.cpp):
// per computer its calls per operation with their times and concurrency, its messages within it, and
// what its runs alone tell. Internal to calibrate.
//
//   std::map<std::string, detail::ComputerData> data;
//   detail::read_trace("lu-2.json", 0, options, fit, data);  // fit: the TraceFit being built
//   for (auto& [computer, d] : data) detail::use_cpu_timed_calls(computer, d, fit);
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/app_model.hpp"
#include "hetperf/model/trace.hpp"

namespace hetperf::calibrate::detail {

struct Call {
  OperationCall call;
  double t = 0;
  std::size_t run = 0;  // index of its trace
  int concurrency = 1;  // ranks of its computer computing at its midpoint, itself included
};

// Calls of one operation on one computer.
using Calls = std::vector<Call>;

struct Message {
  std::uint64_t bytes = 0;
  double t = 0;  // from both sides ready to the receive's end
  std::size_t run = 0;
  int src = 0, dst = 0;  // ranks
};

// What one computer's traces hold: its calls per operation, its messages, its cores.
struct ComputerData {
  std::map<std::string, Calls> calls;  // op -> calls
  std::vector<Message> messages;
  int cores = 1;
  // Calls timed on their CPU clock in runs whose ranks outnumbered its cores (TraceEvent::cpu_s; t is
  // their CPU seconds), and its runs alone with no more ranks than cores: Σ CPU seconds of their ranks
  // and Σ ranks · wall seconds, whose ratio is the share of a core a rank gets there (a CPU quota).
  std::map<std::string, Calls> cpu_calls;
  double alone_cpu_s = 0, alone_rank_wall_s = 0;
  // Per run with no more ranks than cores: the untraced time between consecutive operations of its
  // ranks inside the application's iterations, per compute call (AppModels::call_gap_s).
  std::vector<double> call_gaps_s = {};
};

// printf into a string, for the reports.
std::string format(const char* fmt, double a, double b = 0, double c = 0);

// Reads one trace into `data` (calls of ranks not outnumbering their computer's cores, with their
// concurrency; calls timed on their CPU clock where they did; messages within one host), its large
// sends across hosts, its disk writes alone and its calibrated range into `out`. `f` is its index.
void read_trace(const std::filesystem::path& path, std::size_t f, const TraceFitOptions& o, TraceFit& out,
                std::map<std::string, ComputerData>& data);

// An operation no run timed with at most as many ranks as cores is fitted on its CPU-timed calls, over
// the share of a core a rank gets on the computer alone; `d.cpu_calls` is emptied.
void use_cpu_timed_calls(const std::string& computer, ComputerData& d, TraceFit& out);

}  // namespace hetperf::calibrate::detail
