// The eager limit from the ping-pong's sends to a busy receiver (NetMeasurement::busy_sends): a send
// that returns well before its receiver posts went out eagerly; one that waits for the receiver was a
// rendezvous. The limit is the largest size sent eagerly below the first size that waited.
//
//   Measurement m = read_measurement("measurement.json");  // hetperf probe --only net
//   if (auto e = eager_limit_from_pingpong(*m.net, "measurement.json")) {
//     profile.network.eager_limit = *e;  // 8192 for MPICH 4.0 over UCX's shared memory here
//   }
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

// nullopt without busy sends. With every size sent eagerly, the largest measured (larger messages
// are taken to wait); with none, 0. The source names `file`, the sizes on either side and their times.
std::optional<EagerLimit> eager_limit_from_pingpong(const NetMeasurement& net, const std::string& file);

// Each calibration file's eager limit (eager_limit_from_pingpong; nullopt without a ping-pong's busy
// sends), in the order of `inputs`.
std::vector<std::optional<EagerLimit>> file_eager_limits(const std::vector<CalibrationInput>& inputs);

// The eager limits of a calibration's files (`limits`, from file_eager_limits) into `p`: between
// computers the smallest of the pairs' (network.eager_limit); a computer's own from its loopback
// ping-pong (local_eager_limit), which is also the network's where no pair was measured (a profile of
// one machine, whose network is its loopback).
void eager_limits_from_probes(const std::vector<CalibrationInput>& inputs,
                              const std::vector<std::optional<EagerLimit>>& limits, Profile& p);

// The protocol switch of the ping-pongs of `files` (indices into `limits`), where the network fit
// breaks its regimes (NetworkFitOptions::protocol_limits_bytes): their smallest eager limit; empty
// where none was measured.
std::vector<double> protocol_limits(const std::vector<std::optional<EagerLimit>>& limits,
                                    const std::vector<std::size_t>& files);
// The same over every file (the fit of all pairs pooled).
std::vector<double> protocol_limits(const std::vector<std::optional<EagerLimit>>& limits);

}  // namespace hetperf::calibrate
