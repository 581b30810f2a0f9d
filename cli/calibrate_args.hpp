// The options of `hetperf calibrate` as parsed (calibrate_options.cpp); calibrate_command.cpp runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hetperf::cli {

struct CalibrateArgs {
  std::vector<std::string> files;
  std::string out = "platform.json";
  std::vector<std::string> names;
  std::vector<std::string> groups;
  std::string plots;
  std::string plot_format = "svg";
  bool report = false;
  std::vector<std::string> traces;
  std::string trace_computer;
};

void add_calibrate_options(CLI::App* cmd, CalibrateArgs* args);

}  // namespace hetperf::cli
