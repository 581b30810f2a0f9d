// Tests of calibrate/src/fit_plot.cpp.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "hetperf/calibrate/fit_plot.hpp"
#include "hetperf/calibrate/polynomial_fit.hpp"

using namespace hetperf::calibrate;

TEST_CASE("calibrate: plot file names keep letters and digits of the fit name") {
  CHECK(plot_file_stem("c1: memory slowdown, main memory (linear)") == "c1_memory_slowdown_main_memory_linear");
  CHECK(plot_file_stem("???") == "fit");
}

TEST_CASE("calibrate: fit plots draw data, curve and band through gnuplot as SVG") {
  if (!find_gnuplot()) {
    WARN("gnuplot not installed: plot drawing not tested");
    return;
  }
  std::vector<double> x = {1, 2, 3, 4, 5}, y = {1.1, 1.9, 3.2, 3.9, 5.1};
  PolynomialFitOptions o;
  o.name = "test line";
  FitRecord r{fit_polynomial(x, y, o), x, y, "x", "y", false, true};
  auto dir = std::filesystem::temp_directory_path() / ("hetperf-plot-test-" + std::to_string(::getpid()));
  PlotOptions po;
  po.directory = dir;
  PlotResult res = write_fit_plots(std::span<const FitRecord>(&r, 1), po);
  REQUIRE(res.written.size() == 1);
  CHECK(res.written[0].filename() == "test_line.svg");
  std::ifstream f(res.written[0]);
  std::stringstream text;
  text << f.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("<svg"));
  CHECK_THAT(text.str(), Catch::Contains("95% confidence band"));
  // The points, curve, script and picture; the script names the others relative to the directory,
  // so the set can be moved (calibrate draws in a private directory, then adds them to its outputs).
  REQUIRE(res.files.size() == 4);
  std::ifstream gp(dir / "test_line.gp");
  std::stringstream script;
  script << gp.rdbuf();
  CHECK_THAT(script.str(), Catch::Contains("\"test_line.curve.dat\""));
  CHECK_THAT(script.str(), !Catch::Contains(dir.string()));
  std::filesystem::remove_all(dir);
}

TEST_CASE("calibrate: plot options reject an unknown format") {
  PlotOptions po;
  po.directory = "x";
  po.format = "gif";
  std::string error;
  CHECK_FALSE(po.is_valid(&error));
  CHECK_THAT(error, Catch::Contains("format"));
}
