// A platform profile as a SimGrid platform file (XML, platform version 4.1), so that SimGrid users run
// their simulations on the speeds, cores and network hetperf calibrated (DPS paper section 4's star):
//  - one host per computer: speed = mips · 10^6 (SimGrid counts "flops"; one instruction of the
//    profile's MI is one of them), core = cores;
//  - the star: a zone with Cluster routing, each host joined to the centre by its own split-duplex
//    link of the network's bandwidth b and half its latency l, so that a transfer between two hosts
//    takes l + s/b alone and shares each direction of each link equally (SimGrid's CM02 model
//    without cross traffic is hetperf's model; LV08, SimGrid's default, adds its own factors);
//  - what SimGrid's platform cannot express (memory and its slowdown, disks, lo, kernel models)
//    is kept as host properties, for reference.
#pragma once

#include <string>

#include "hetperf/model/profile.hpp"

namespace hetperf {

// InputError naming the profile field when it has no network (a partial profile).
std::string simgrid_platform_xml(const Profile& profile);

}  // namespace hetperf
