// The measurement files of a calibration, as `hetperf calibrate` takes them: positional files, their
// computer names, and group labels that may add files.
//
//   auto inputs = calibrate::load_measurements({"a.json", "b.json"}, {"fast", "slow"}, {"lab=c.json"});
//   Calibration cal = calibrate::calibrate_platform(inputs, {command_line});
#pragma once

#include <string>
#include <vector>

#include "hetperf/calibrate/profile_builder.hpp"

namespace hetperf::calibrate {

// Reads `positional` in order, each named by `names` (one per positional file, or none: each file's
// machine), then applies `groups`, each "NAME=FILE[,FILE...]": it labels those files, adding the ones
// not listed. InputError (naming --name or --group) on a count or a label that does not fit, or when
// no file is left; load_measurement's on a bad file.
std::vector<CalibrationInput> load_measurements(const std::vector<std::string>& positional,
                                                const std::vector<std::string>& names,
                                                const std::vector<std::string>& groups);

}  // namespace hetperf::calibrate
