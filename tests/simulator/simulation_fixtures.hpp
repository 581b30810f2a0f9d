// Small builders shared by the simulator tests: profiles and workloads written as JSON text, read
// through the real readers so the tests exercise the same validation as `hetperf predict`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/simulator/unimpp_simulation.hpp"

namespace hetperf::test {

// One computer entry with round figures: 1000 MIPS, 1000 MB + 1000 MB, disks 100 / 50 MB/s, lo = 1 ms.
inline nlohmann::json computer(const std::string& name, double mips = 1000, int cores = 1) {
  return {{"name", name},
          {"cores", cores},
          {"mips", mips},
          {"main_memory_mb", 1000},
          {"virtual_memory_mb", 1000},
          {"disk_read_bytes_per_s", 100e6},
          {"disk_write_bytes_per_s", 50e6},
          {"overhead_latency_s", 0.001}};
}

inline Profile profile(nlohmann::json computers, double bandwidth_bytes_per_s = 1e6) {
  nlohmann::json j = {{"schema", "hetperf.profile/1"},
                      {"computers", std::move(computers)},
                      {"network", {{"latency_s", 0}, {"bandwidth_bytes_per_s", bandwidth_bytes_per_s}}}};
  return profile_from_json(j, "test-profile.json");
}

inline Workload workload(nlohmann::json processes, nlohmann::json policy = {{"placement", "round_robin"}},
                         std::uint64_t seed = 1) {
  nlohmann::json j = {{"schema", "hetperf.workload/1"},
                      {"seed", seed},
                      {"policy", std::move(policy)},
                      {"processes", std::move(processes)}};
  return workload_from_json(j, "test-workload.json");
}

inline Prediction run(const Profile& p, const Workload& w, sim::SimulationOptions options = {}) {
  return sim::simulate(p, w, "test-workload.json", options);
}

inline const ProcessResult& process(const Prediction& p, const std::string& name) {
  for (const auto& r : p.processes) {
    if (r.name == name) return r;
  }
  throw std::runtime_error("no process " + name);
}

}  // namespace hetperf::test
