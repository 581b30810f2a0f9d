// Measurement files in, platform profile out: each measurement file becomes one computer of the
// UniMPP sextuple {pc, mm, vm, dr, dw, lo} (UniMPP paper section 2) with its memory slowdown function
// (eq. 3, Tables 2, 5, 6) and LU kernel models; the ping-pong points give the network model
// t = l + s/b (DPS paper section 4) per protocol regime and per pair of hosts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_record.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::calibrate {

struct CalibrationInput {
  std::string file;    // path as given, for provenance and error messages
  std::string sha256;  // of the file's bytes
  Measurement measurement;
  std::string name;   // computer name; empty: the measurement's machine name
  std::string group;  // optional group label
};

// Reads, hashes and validates a measurement file (InputError on an unknown schema or a bad field).
CalibrationInput load_measurement(const std::filesystem::path& path);

struct CalibrationOptions {
  std::string command;       // recorded for provenance
  double poor_fit_r2 = 0.9;  // a fit with a lower R² is named in the profile's warnings
};

struct Calibration {
  Profile profile;
  std::vector<FitRecord> fits;  // every fit, in the order made (computers, then the network)
};

// InputError when a measurement lacks what a computer needs (CPU or disk) or holds too few points, NaN,
// infinity or a non-positive size for a fit, naming the file and the field.
Calibration calibrate_platform(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options);

// calibrate_platform(...).profile.
Profile build_profile(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options);

}  // namespace hetperf::calibrate
