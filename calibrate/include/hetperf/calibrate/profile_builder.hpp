// Measurement files in, platform profile out: each measurement file becomes one computer of the
// UniMPP sextuple {pc, mm, vm, dr, dw, lo} (seed 001 section 2), and the ping-pong points give the
// network model t = l + s/b (seed 000 section 4).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

struct CalibrationInput {
  std::string file;          // path as given, for provenance and error messages
  std::string sha256;        // of the file's bytes
  Measurement measurement;
  std::string name;          // computer name; empty: the measurement's machine name
  std::string group;         // optional group label
};

// Reads, hashes and validates a measurement file.
CalibrationInput load_measurement(const std::filesystem::path& path);

struct CalibrationOptions {
  std::string command;  // recorded for provenance
};

// InputError when a measurement lacks what a computer needs (CPU or disk), naming the file and field.
Profile build_profile(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options);

}  // namespace hetperf::calibrate
