// Placement policies: which computer a newly arrived process starts on. A policy is one class
// registered by name (see docs/policies.md); the workload file or `--policy` chooses it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/distribution.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::sim {

// What a policy may look at when it decides: the computers and their present load.
struct ComputerLoad {
  std::size_t resident = 0;   // processes placed and not finished
  std::size_t computing = 0;  // of those, in their compute phase
  double occupied_mb = 0;     // memory held by resident processes
};

struct PlacementRequest {
  std::size_t process = 0;  // index of the process instance (arrival order)
  double memory_mb = 0;     // sm + dm of the process
  double mi = 0;            // its processing demand
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // Returns the index of the chosen computer in `computers`. `rng` is the simulation's seeded stream.
  virtual std::size_t place(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load,
                            const PlacementRequest& request, Rng& rng) = 0;
  // Called by the simulation after the number of resident processes on `computer` changed (arrival,
  // finish, migration), so a policy may keep an index instead of scanning every computer per arrival.
  virtual void resident_changed(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load,
                                std::size_t computer) {
    (void)computers, (void)load, (void)computer;
  }
};

using PlacementFactory = std::function<std::unique_ptr<PlacementPolicy>(const nlohmann::json& options)>;

// Registers a policy under `name`; returns true so it can initialise a static in the policy's file.
bool register_placement(const std::string& name, const std::string& description, PlacementFactory factory);
// Creates the policy `name`; InputError listing the known names when there is none.
std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, const nlohmann::json& options);
// (name, description) of every registered policy, sorted by name.
std::vector<std::pair<std::string, std::string>> placement_policies();

}  // namespace hetperf::sim
