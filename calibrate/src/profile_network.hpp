// The network of a platform profile from the measurement files' ping-pongs: one fit per pair of hosts,
// the whole network's, and each computer's lo (UniMPP's "overhead + latency"). Internal to calibrate
// (profile_builder.cpp builds the profile, one computer per file, and calls these in turn).
//
//   NetworkData net;
//   net.measured_lo.resize(inputs.size());
//   for (std::size_t i = 0; i < inputs.size(); ++i) gather_network(inputs[i], i, profile.computers[i], net);
//   set_overhead_latency(profile, net, fit_network_pairs(inputs, net, record, profile));
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_record.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate::detail {

// The ping-pong points of one pair of hosts, from every file that measured it.
struct PairData {
  std::vector<std::string> hosts;
  std::map<std::uint64_t, std::vector<double>> times_by_size;
  std::vector<std::size_t> inputs;
  const LogGPParameters* loggp = nullptr;  // from the first file of the pair that measured it
};

// What the measurement files say of the network, gathered computer by computer.
struct NetworkData {
  std::map<std::vector<std::string>, PairData> pairs;
  std::vector<std::optional<double>> measured_lo;  // per file: its one-way time at kLoMessageBytes
  std::vector<std::string> unmeasured;             // computers without a network probe
};

// File `idx`'s ping-pong into its pair of hosts, its time at 32 bytes, and the computer's hand-off.
void gather_network(const CalibrationInput& in, std::size_t idx, Computer& c, NetworkData& net);

// Each pair's network fit, and the whole network's (the only pair's, or all pairs' pooled), its send
// buffer and eager limits, into `profile`; each fit's record goes to `record`. Returns per file the lo
// its pair's fit gives.
std::vector<std::optional<double>> fit_network_pairs(const std::vector<CalibrationInput>& inputs,
                                                     const NetworkData& net,
                                                     const std::function<void(FitRecord)>& record, Profile& profile);

// Each computer's lo: measured at 32 bytes when its file holds that size, else its pair's fit's, else
// the whole network's.
void set_overhead_latency(Profile& profile, const NetworkData& net, const std::vector<std::optional<double>>& pair_lo);

}  // namespace hetperf::calibrate::detail
