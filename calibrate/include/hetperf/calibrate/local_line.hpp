// Messages between two ranks of one computer from a loopback ping-pong, for computers whose traces
// cannot fit them: with one core, every run of two ranks there is oversubscribed, and its messages
// hold the ranks' wait for the core, which the simulator's time-sliced cores add on their own.
//
//   Measurement host = read_measurement("measurement-host.json");  // hetperf probe --only net
//   if (auto line = local_line_from_pingpong(host, "measurement-host.json")) {
//     use_local_line(profile, *line, eager_limit_from_pingpong(*host.net, "measurement-host.json"));
//   }
#pragma once

#include <optional>
#include <string>

#include "hetperf/model/measurement.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

// t = l + bytes · g: l the one-way time of the smallest size, g the least-squares slope over the sizes
// from 64 KiB on (at least two); nullopt without a loopback ping-pong (both ends on one host) or
// such sizes. The line's source names `file`.
std::optional<MessageModel> local_line_from_pingpong(const Measurement& loopback, const std::string& file);

// Gives `line` to every computer with one core and no local message line, and `eager` (the same
// ping-pong's eager limit, eager_limit.hpp) where it has none of its own; returns their count.
int use_local_line(Profile& profile, const MessageModel& line, const std::optional<EagerLimit>& eager = std::nullopt);

}  // namespace hetperf::calibrate
