// The platform profile (schema hetperf.profile/1): the computers of a (heterogeneous) cluster as the
// UniMPP sextuple {pc, mm, vm, dr, dw, lo} (seed 001 section 2) plus cores, the memory slowdown
// function, and the network model t = l + s/b (seed 000 section 4). Produced by `hetperf calibrate`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/unimpp.hpp"

namespace hetperf {

inline constexpr int kProfileSchemaVersion = 1;

struct Computer {
  std::string name;
  std::string group;                 // optional label ("fast"), empty when ungrouped
  int cores = 1;                     // processors sharing the computer's processes
  double mips = 0;                   // pc: capacity of one core, million instructions per second
  double main_memory_mb = 0;         // mm
  double virtual_memory_mb = 0;      // vm (swap), may be 0
  double disk_read_bytes_per_s = 0;  // dr
  double disk_write_bytes_per_s = 0; // dw
  double overhead_latency_s = 0;     // lo = 2o + l (seed eq. 7), measured with 32-byte messages
  std::optional<unimpp::SlowdownFunction> slowdown;  // absent: memory not measured, α = 0
  nlohmann::json fits = nlohmann::json::object();    // fit quality and provenance of each figure

  double alpha(double occupied_mb) const { return slowdown ? slowdown->alpha(occupied_mb) : 0.0; }
};

struct NetworkModel {
  double latency_s = 0;                 // l of t = l + s/b
  double bandwidth_bytes_per_s = 0;     // b of t = l + s/b
  nlohmann::json fit = nlohmann::json::object();
};

struct ProvenanceEntry {
  std::string file;
  std::string machine;
  std::string measured_utc;
  std::string sha256;  // of the measurement file's bytes
};

struct Profile {
  std::string hetperf_version;
  std::string command;
  std::string created_utc;
  std::vector<Computer> computers;
  NetworkModel network;
  std::vector<ProvenanceEntry> provenance;
  std::vector<std::string> warnings;  // poor fits and missing data, carried to every later stage

  // Index of the computer named `name`, or nullopt.
  std::optional<std::size_t> find(const std::string& name) const;
};

nlohmann::json to_json(const Profile& p);
// Validates every field, including name uniqueness; InputError names `file` and the JSON path.
// A computer entry may carry "count": N to stand for N identical computers named <name>-1 .. <name>-N.
Profile profile_from_json(const nlohmann::json& j, const std::string& file);
Profile read_profile(const std::filesystem::path& path);

}  // namespace hetperf
