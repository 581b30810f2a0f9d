// `hetperf testbed`'s options as parsed, and its up, down and status (testbed_runs.cpp);
// testbed_command.cpp parses them and runs exec and launch.
#pragma once

#include <string>

#include "hetperf/validate/testbed.hpp"

namespace hetperf::cli {

struct TestbedArgs {
  validate::TestbedOptions options;
  std::string spec;
  std::string name;
  std::string testbed;
};

// `up`: the computers made, their addresses, and how to run MPI across them; 130 when interrupted.
int run_up(const TestbedArgs& a);
// `down` and `status` of the testbed --name, the one --spec names, or the only one that is up.
int run_down(const TestbedArgs& a);
int run_status(const TestbedArgs& a);

}  // namespace hetperf::cli
