// hetperf: probe a machine, calibrate a platform profile, predict a workload's response times.
#include "app.hpp"

int main(int argc, char** argv) { return hetperf::cli::run(argc, argv); }
