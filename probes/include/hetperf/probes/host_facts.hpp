// Collects the host facts recorded in every measurement file.
#pragma once

#include "hetperf/model/host.hpp"

namespace hetperf::probes {

HostInfo collect_host_info();

}  // namespace hetperf::probes
