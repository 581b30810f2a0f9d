// The processors a batch scheduler allocates: groups of equal speed (a homogeneous cluster is one
// group), from a profile's computers x cores, plus the network model used for redistribution costs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/model/profile.hpp"

namespace hetperf::sim::batch {

struct SpeedGroup {
  std::string name;             // computer name ("unit" for the homogeneous cluster)
  double speed = 1;             // relative to the fastest processor (1 = fastest), in (0, 1]
  std::int64_t processors = 0;  // cores
};

struct Cluster {
  std::vector<SpeedGroup> groups;  // fastest first; allocation takes the fastest idle processors
  // The profile's network.redistribution when it has one (fitted to measured resizes), else its
  // network line.
  double latency_s = 0;              // l of t = l + s/b
  double bandwidth_bytes_per_s = 0;  // b; 0: no network model (given redistribution costs only)

  std::int64_t total() const;
  // N processors of speed 1 and no network model.
  static Cluster homogeneous(std::int64_t processors);
  // One group per computer: cores processors of speed mips / (largest mips); the profile's network.
  // Job run times are then times on the fastest processor.
  static Cluster from_profile(const Profile& profile);
};

}  // namespace hetperf::sim::batch
