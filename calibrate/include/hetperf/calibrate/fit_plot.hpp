// One picture per fit (data points, fitted curve, 95% confidence band of the curve), drawn by gnuplot.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hetperf/calibrate/fit_record.hpp"

namespace hetperf::calibrate {

struct PlotOptions {
  std::filesystem::path directory;  // created when missing; one <fit name>.<format> per fit
  std::string format = "svg";       // "svg" or "png"
  int curve_points = 200;           // samples of the curve and band, >= 2

  bool is_valid(std::string* error) const;
};

struct PlotResult {
  std::vector<std::filesystem::path> written;  // the pictures
  // Every file written: per fit its points (.dat), curve and band (.curve.dat), gnuplot script (.gp,
  // naming the others relative to the directory, so the set can be moved) and picture.
  std::vector<std::filesystem::path> files;
  std::string skipped_reason;  // non-empty when no plot was drawn (gnuplot missing)
};

// The gnuplot executable on PATH, or nullopt.
std::optional<std::filesystem::path> find_gnuplot();

// A file name for a fit name: letters, digits, '-' and '_' kept, everything else '_'.
std::string plot_file_stem(const std::string& fit_name);

// Writes the plots; EnvironmentError when gnuplot fails on one, InputError on invalid options.
PlotResult write_fit_plots(std::span<const FitRecord> fits, const PlotOptions& options);

}  // namespace hetperf::calibrate
