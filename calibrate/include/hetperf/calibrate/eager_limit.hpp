// The eager limit from the ping-pong's sends to a busy receiver (NetMeasurement::busy_sends): a send
// that returns well before its receiver posts went out eagerly; one that waits for the receiver was a
// rendezvous. The limit is the largest size sent eagerly below the first size that waited.
//
//   Measurement m = read_measurement("measurement.json");  // hetperf probe --only net
//   if (auto e = eager_limit_from_pingpong(*m.net, "measurement.json")) {
//     profile.network.eager_limit = *e;  // 8192 for MPICH 4.0 over UCX's shared memory here
//   }
#pragma once

#include <optional>
#include <string>

#include "hetperf/model/measurement.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

// nullopt without busy sends. With every size sent eagerly, the largest measured (larger messages
// are taken to wait); with none, 0. The source names `file`, the sizes on either side and their times.
std::optional<EagerLimit> eager_limit_from_pingpong(const NetMeasurement& net, const std::string& file);

}  // namespace hetperf::calibrate
