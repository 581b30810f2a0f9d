// The options of `hetperf schedule` as parsed (schedule_options.cpp); schedule_command.cpp runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hetperf::cli {

struct ScheduleArgs {
  std::string workload;
  std::string swf;
  std::int64_t processors = 0;
  std::string policy;
  std::string platform;
  std::string out = "schedule.json";
  std::string swf_out;
  std::string csv;
  std::string allocation_csv;
  std::string plot_dir;
  std::size_t rows = 20;
  std::size_t plot_jobs = 30;
  bool summary_only = false;
  std::string swf_procs = "allocated";
  bool kill_at_limit = true;
};

void add_schedule_options(CLI::App* cmd, ScheduleArgs* args);

}  // namespace hetperf::cli
