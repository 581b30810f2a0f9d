// The probe's report on the console, apart from the probes that measure: each figure with its 95%
// interval and sample count, the memory curve point by point, what was skipped and why.
//
//   Measurement m = probes::run_probe_suite(options, progress);
//   write_json_file("measurement.json", to_json(m));
//   probes::print_measurement(m, "measurement.json", std::cout);
#pragma once

#include <ostream>
#include <string>

#include "hetperf/model/measurement.hpp"

namespace hetperf::probes {

// `m` as lines on `os`, ending with "wrote <out>".
void print_measurement(const Measurement& m, const std::string& out, std::ostream& os);

}  // namespace hetperf::probes
