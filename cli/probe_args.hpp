// The options of `hetperf probe` as parsed, and their way into the probe suite's options
// (probe_options.cpp, probe_suite_options.cpp); probe_command.cpp runs the suite.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hetperf/probes/probe_suite.hpp"

namespace hetperf::cli {

struct ProbeArgs {
  std::string out = "measurement.json";
  bool quick = false;
  std::vector<std::string> only;
  std::string machine;
  std::string dir = ".";
  std::uint64_t disk_size = 0;
  std::uint64_t disk_buffer = 0;
  std::vector<std::uint64_t> disk_sweep;
  double precision = 0.02;
  std::size_t min_samples = 10;
  double time_cap = 0;
  std::string hosts;
  std::string mpiexec = "mpiexec";
  std::vector<std::uint64_t> sizes;
  bool no_loggp = false;
  bool no_handoff = false;
  int threads = 1;
  std::vector<std::uint64_t> blocks;
  std::uint64_t lu_rows = 0;
  double memory_limit = 0;
  std::size_t memory_passes = 0;
  double swap = -1;
  bool no_confine = false;
  std::uint16_t serve = 0;
  std::string bind = "0.0.0.0";
  bool once = false;
  std::string connect;
};

// The probe suite's options from the command line's: `precision_given` and `min_samples_given` say
// whether those were given (the memory curve keeps its own rule otherwise).
probes::SuiteOptions suite_options(const ProbeArgs& a, const std::string& command_line, bool precision_given,
                                   bool min_samples_given);

// The options of each probe: disk, cpu kernels, memory, network (MPI ping-pong, or TCP with --serve
// and --connect).
void add_disk_options(CLI::App* cmd, ProbeArgs* args);
void add_cpu_options(CLI::App* cmd, ProbeArgs* args);
void add_memory_options(CLI::App* cmd, ProbeArgs* args);
void add_net_options(CLI::App* cmd, ProbeArgs* args);

}  // namespace hetperf::cli
