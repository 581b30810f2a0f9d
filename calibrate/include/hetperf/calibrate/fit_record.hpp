// A fit together with the data it was fitted on: what `hetperf calibrate --report` prints and
// `--plots` draws.
#pragma once

#include <string>
#include <vector>

#include "hetperf/calibrate/fit_summary.hpp"

namespace hetperf::calibrate {

struct FitRecord {
  FitSummary summary;
  std::vector<double> x, y;  // the data points, in the fit's units
  std::string x_label;       // with unit, e.g. "occupied memory (MB)"
  std::string y_label;
  bool log_scale = false;     // draw both axes logarithmic (message sizes and times span decades)
  bool r2_meaningful = true;  // false for a flat regime, where R² compares noise with noise
};

}  // namespace hetperf::calibrate
