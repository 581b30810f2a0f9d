// The calibration's report on the console, apart from the fits that make the profile.
//
//   Calibration cal = calibrate::calibrate_platform(inputs, options);
//   calibrate::print_profile_table(cal.profile, std::cout);  // one line per computer, the network's
//   calibrate::print_fit_report(cal, std::cout);             // every fit's brief report (--report)
#pragma once

#include <ostream>

#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

// One line per computer (cores, MIPS, memory, disk rates, local overhead; "-" where not measured) and
// one for the network.
void print_profile_table(const Profile& p, std::ostream& os);

// Every fit's brief report, then each computer's MIPS, MFLOPS and disk rates with their 95% intervals.
void print_fit_report(const Calibration& cal, std::ostream& os);

}  // namespace hetperf::calibrate
