// Plots through gnuplot: a data file and a script per fit, run as `gnuplot <script>`.
#include "hetperf/calibrate/fit_plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/gnuplot.hpp"
#include "hetperf/model/process.hpp"

namespace hetperf::calibrate {

bool PlotOptions::is_valid(std::string* error) const {
  if (format != "svg" && format != "png") {
    *error = "format: expected \"svg\" or \"png\", got \"" + format + "\"";
    return false;
  }
  if (curve_points < 2) {
    *error = "curve_points: expected at least 2, got " + std::to_string(curve_points);
    return false;
  }
  if (directory.empty()) {
    *error = "directory: expected a directory, got an empty path";
    return false;
  }
  return true;
}

std::optional<std::filesystem::path> find_gnuplot() { return find_on_path("gnuplot"); }

std::string plot_file_stem(const std::string& fit_name) {
  std::string stem;
  for (unsigned char ch : fit_name) {
    bool keep = std::isalnum(ch) || ch == '-' || ch == '_';
    if (keep)
      stem += static_cast<char>(ch);
    else if (stem.empty() || stem.back() != '_')
      stem += '_';
  }
  while (!stem.empty() && stem.back() == '_') stem.pop_back();
  return stem.empty() ? "fit" : stem;
}

PlotResult write_fit_plots(std::span<const FitRecord> fits, const PlotOptions& options) {
  std::string error;
  if (!options.is_valid(&error)) throw InputError("--plots: " + error);
  PlotResult result;
  auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    result.skipped_reason = "gnuplot not found on PATH (install gnuplot-nox to draw the fits)";
    return result;
  }
  std::filesystem::create_directories(options.directory);
  std::vector<std::string> used;
  for (const FitRecord& r : fits) {
    std::string stem = plot_file_stem(r.summary.name);
    // Fit names are unique within a calibration; a suffix keeps them apart if a caller repeats one.
    std::string unique = stem;
    for (int k = 2; std::find(used.begin(), used.end(), unique) != used.end(); ++k)
      unique = stem + "-" + std::to_string(k);
    used.push_back(unique);
    std::filesystem::path data = options.directory / (unique + ".dat");
    std::filesystem::path curve = options.directory / (unique + ".curve.dat");
    std::filesystem::path script = options.directory / (unique + ".gp");
    std::filesystem::path image = options.directory / (unique + "." + options.format);

    std::ostringstream points, band;
    points.precision(10), band.precision(10);
    for (std::size_t i = 0; i < r.x.size(); ++i) points << r.x[i] << ' ' << r.y[i] << '\n';
    double lo = r.summary.x_min, hi = r.summary.x_max;
    for (int i = 0; i < options.curve_points; ++i) {
      double f = static_cast<double>(i) / (options.curve_points - 1);
      double x = r.log_scale && lo > 0 ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f;
      double y = r.summary.predict(x), h = r.summary.band_half_width95(x);
      band << x << ' ' << y << ' ' << y - h << ' ' << y + h << '\n';
    }
    write_file_atomic(data, points.str());
    write_file_atomic(curve, band.str());
    GnuplotScript gp;
    gp.terminal(options.format, 800, 560, options.format == "svg" ? "dynamic" : "").output(image.filename())
        << "set title " << gnuplot_quoted(r.summary.name + "  (R² " + std::to_string(r.summary.r2).substr(0, 6) + ")")
        << " noenhanced\n"
        << "set xlabel " << gnuplot_quoted(r.x_label) << " noenhanced\nset ylabel " << gnuplot_quoted(r.y_label)
        << " noenhanced\n"
        << "set key left top\nset grid\n"
        << (r.log_scale ? "set logscale xy\n" : "") << "plot " << gnuplot_quoted(curve.filename().string())
        << " using 1:3:4 with filledcurves fc rgb '#c6dbef' title '95% confidence band', \\\n"
        << "     " << gnuplot_quoted(curve.filename().string())
        << " using 1:2 with lines lw 2 lc rgb '#08519c' title 'fit', \\\n"
        << "     " << gnuplot_quoted(data.filename().string())
        << " using 1:2 with points pt 7 ps 0.8 lc rgb '#cb181d' title 'measured'\n";
    write_file_atomic(script, gp.text());
    run_gnuplot(script.filename(), options.directory);
    result.written.push_back(image);
    result.files.insert(result.files.end(), {data, curve, script, image});
  }
  return result;
}

}  // namespace hetperf::calibrate
