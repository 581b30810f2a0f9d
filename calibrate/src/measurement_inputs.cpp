// The measurement files of a calibration, named and grouped (measurement_inputs.hpp).
#include "hetperf/calibrate/measurement_inputs.hpp"

#include <algorithm>

#include "hetperf/model/error.hpp"

namespace hetperf::calibrate {
namespace {

// "--group fast=a.json,b.json": labels those files (adding them when not listed positionally).
void apply_groups(const std::vector<std::string>& groups, std::vector<std::string>& files,
                  std::vector<std::string>& file_groups) {
  for (const std::string& g : groups) {
    auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size()) {
      throw InputError("--group: expected NAME=FILE[,FILE...], got '" + g + "'");
    }
    std::string name = g.substr(0, eq), list = g.substr(eq + 1);
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t comma = std::min(list.find(',', start), list.size());
      std::string file = list.substr(start, comma - start);
      start = comma + 1;
      if (file.empty()) continue;
      auto it = std::find(files.begin(), files.end(), file);
      if (it == files.end()) {
        files.push_back(file);
        file_groups.push_back(name);
      } else {
        auto& slot = file_groups[static_cast<std::size_t>(it - files.begin())];
        if (!slot.empty() && slot != name)
          throw InputError("--group: " + file + " is in groups '" + slot + "' and '" + name + "'");
        slot = name;
      }
    }
  }
}

}  // namespace

std::vector<CalibrationInput> load_measurements(const std::vector<std::string>& positional,
                                                const std::vector<std::string>& names,
                                                const std::vector<std::string>& groups) {
  if (!names.empty() && names.size() != positional.size()) {
    throw InputError("--name: expected " + std::to_string(positional.size()) +
                     " names (one per measurement file), got " + std::to_string(names.size()));
  }
  std::vector<std::string> files = positional, file_groups(files.size());
  apply_groups(groups, files, file_groups);
  if (files.empty()) throw InputError("calibrate: expected at least one measurement file");
  std::vector<CalibrationInput> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    inputs.push_back(load_measurement(files[i]));
    if (i < names.size()) inputs.back().name = names[i];
    inputs.back().group = file_groups[i];
  }
  return inputs;
}

}  // namespace hetperf::calibrate
