// The validation's pictures: gnuplot scripts with their data inline (see reports.hpp).
#include "hetperf/validate/reports.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "hetperf/model/file_io.hpp"
#include "hetperf/model/gnuplot.hpp"
#include "hetperf/model/process.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::validate {
using namespace apps;

std::string Picture::script(const std::filesystem::path& output) const {
  GnuplotScript gp;
  gp.terminal("pngcairo", 900, 600, "noenhanced font 'sans,10'").output(output) << "set grid\n" << body;
  return gp.text();
}

namespace {

// `plot a, b, ...`, or a placeholder curve titled `none` when there is nothing to draw.
void plot(GnuplotScript& gp, std::vector<std::string> curves, std::string_view none) {
  if (curves.empty()) curves.push_back("0 title " + gnuplot_quoted(none));
  gp << "plot ";
  for (std::size_t i = 0; i < curves.size(); ++i) gp << (i ? ", " : "") << curves[i];
  gp << "\n";
}

// Histogram of signed errors in 1% bins (the DPS paper's Figure 13).
Picture errors_histogram(const std::vector<ValidationRun>& runs) {
  std::map<int, int> bins;
  for (const auto& r : runs) bins[static_cast<int>(std::floor(100 * r.error()))]++;
  std::ostringstream rows;
  for (const auto& [b, n] : bins) rows << b + 0.5 << ' ' << n << '\n';
  GnuplotScript gp;
  gp << "set title "
     << gnuplot_quoted("Prediction error of " + std::to_string(runs.size()) + " runs (predicted - measured) / measured")
     << "\nset xlabel 'error (%)'\nset ylabel 'runs'\nset style fill solid 0.6\nset boxwidth 0.9\n";
  gp.datablock("d", rows.str());
  gp << "plot $d using 1:2 with boxes title 'runs per 1% bin'\n";
  return {"errors-histogram.png", gp.text()};
}

// Every run's measured against predicted time, one colour per group, with the ±5% lines.
Picture measured_vs_predicted(const std::vector<ValidationRun>& runs) {
  GnuplotScript gp;
  gp << "set title 'Measured against predicted time'\nset xlabel 'measured (s)'\nset ylabel 'predicted (s)'\n"
        "set logscale xy\nset key left top\n";
  std::map<std::string, std::vector<const ValidationRun*>> groups;
  double lo = 1e300, hi = 0;
  for (const auto& r : runs) {
    groups[r.group].push_back(&r);
    if (r.measured_s > 0)
      lo = std::min({lo, r.measured_s, r.predicted_s}), hi = std::max({hi, r.measured_s, r.predicted_s});
  }
  std::vector<std::string> curves;
  for (const auto& [g, list] : groups) {
    std::ostringstream rows;
    for (const auto* r : list) rows << r->measured_s << ' ' << r->predicted_s << '\n';
    const std::string name = "g" + std::to_string(curves.size());
    gp.datablock(name, rows.str());
    curves.push_back("$" + name + " using 1:2 with points pt 7 title " + gnuplot_quoted(g));
  }
  if (hi <= 0) lo = 0.1, hi = 1;
  gp << "set xrange [" << lo / 1.5 << ":" << hi * 1.5 << "]\nset yrange [" << lo / 1.5 << ":" << hi * 1.5 << "]\n";
  curves.push_back("x with lines lc rgb 'black' title 'exact'");
  curves.push_back("1.05*x with lines dt 2 lc rgb 'gray' title '+5%'");
  curves.push_back("0.95*x with lines dt 2 lc rgb 'gray' title '-5%'");
  plot(gp, curves, "");
  return {"measured-vs-predicted.png", gp.text()};
}

// The removal runs' dynamic efficiency per LU iteration, measured and predicted (the DPS paper's
// Figures 11-12).
Picture efficiency_removal(const std::vector<ValidationRun>& runs) {
  GnuplotScript gp;
  gp << "set title 'Dynamic efficiency per LU iteration, node removal runs'\nset xlabel 'iteration'\n"
        "set ylabel 'efficiency'\nset yrange [0:1.05]\nset key outside right\n";
  std::vector<std::string> curves;
  for (const auto& r : runs) {
    if (r.group != "lu-removal") continue;
    for (const bool measured : {true, false}) {
      const auto& its = measured ? r.measured_iterations : r.predicted_iterations;
      std::ostringstream rows;
      for (const auto& it : its) rows << it.value("iteration", 0) << ' ' << it.value("efficiency", 0.0) << '\n';
      const std::string name = "e" + std::to_string(curves.size());
      gp.datablock(name, rows.str());
      curves.push_back("$" + name + " using 1:2 with linespoints " + (measured ? "pt 7" : "dt 2 pt 6") + " title " +
                       gnuplot_quoted(r.id + (measured ? " measured" : " predicted")));
    }
  }
  plot(gp, curves, "no removal runs");
  return {"efficiency-removal.png", gp.text()};
}

// The integration's mean response time against its processes, measured and predicted (the UniMPP
// paper's Tables 3 and 7).
Picture integration_curve(const std::vector<ValidationRun>& runs) {
  GnuplotScript gp;
  gp << "set title 'Integration: average response time against processes'\nset xlabel 'concurrent processes'\n"
        "set ylabel 'average response time (s)'\nset key left top\n";
  std::vector<std::string> curves;
  for (const char* group : {"integrate", "integrate-load"}) {
    std::ostringstream rows;
    int points = 0;
    for (const auto& r : runs) {
      if (r.group != group) continue;
      rows << r.job.instances << ' ' << r.measured_s << ' ' << r.predicted_s << '\n';
      ++points;
    }
    if (!points) continue;
    const std::string name = "i" + std::string(group == std::string("integrate") ? "0" : "1");
    gp.datablock(name, rows.str());
    curves.push_back("$" + name + " using 1:2 with linespoints pt 7 title " +
                     gnuplot_quoted(std::string(group) + " measured"));
    curves.push_back("$" + name + " using 1:3 with linespoints dt 2 pt 6 title " +
                     gnuplot_quoted(std::string(group) + " predicted"));
  }
  plot(gp, curves, "no integration runs");
  return {"integration-curve.png", gp.text()};
}

// Per group: every configuration's measured runs as a box (quartiles, whiskers to the extremes),
// the predicted 80% interval and median beside it, times relative to the measured median.
void add_distributions(const std::vector<ValidationRun>& runs, std::vector<Picture>& out) {
  std::map<std::string, std::vector<const ValidationRun*>> by_group;
  for (const auto& r : runs) {
    if (!r.measured_samples_s.empty() && r.measured_s > 0) by_group[r.group].push_back(&r);
  }
  for (const auto& [group, list] : by_group) {
    std::ostringstream rows;
    std::ostringstream tics;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const ValidationRun& r = *list[i];
      auto rel = [&](double v) { return v / r.measured_s; };
      const auto& x = r.measured_samples_s;
      rows << i << ' ' << rel(quantile_nearest_rank(x, 0.25)) << ' ' << rel(*std::min_element(x.begin(), x.end()))
           << ' ' << rel(*std::max_element(x.begin(), x.end())) << ' ' << rel(quantile_nearest_rank(x, 0.75)) << ' '
           << 1.0 << ' ' << rel(r.predicted_s) << ' ' << rel(r.predicted_p10_s) << ' ' << rel(r.predicted_p90_s)
           << '\n';
      tics << (i ? ", " : "") << gnuplot_quoted(r.id) << ' ' << i;
    }
    GnuplotScript gp;
    gp << "set title "
       << gnuplot_quoted(group + ": measured runs (boxes) and predicted 80% intervals, relative to the measured median")
       << "\nset ylabel 'time / measured median'\nset xtics rotate by -40 (" << tics.str()
       << ")\nset xrange [-0.7:" << list.size() - 0.3 << "]\nset boxwidth 0.3\nset key top left\nset bmargin 12\n";
    gp.datablock("b", rows.str());
    gp << "plot $b using ($1-0.18):2:3:4:5 with candlesticks whiskerbars lc rgb '#2166ac' title 'measured (quartiles, "
          "extremes)', "
          "$b using ($1-0.18):6:6:6:6 with candlesticks lc rgb '#2166ac' notitle, "
          "$b using ($1+0.18):7:8:9 with yerrorbars pt 7 lc rgb '#b2182b' title 'predicted median, 80% interval', "
          "1 with lines dt 2 lc rgb 'gray' notitle\n";
    out.push_back({"distributions-" + group + ".png", gp.text()});
  }
}

}  // namespace

std::vector<Picture> validation_pictures(const std::vector<ValidationRun>& runs) {
  std::vector<Picture> out = {errors_histogram(runs), measured_vs_predicted(runs), efficiency_removal(runs),
                              integration_curve(runs)};
  add_distributions(runs, out);
  return out;
}

std::optional<std::vector<std::string>> draw_pictures(const std::vector<Picture>& pictures,
                                                      const std::filesystem::path& dir, OutputSet& outputs) {
  if (!find_on_path("gnuplot")) return std::nullopt;
  ScratchDir scratch("hetperf-validate-pictures");
  std::vector<std::string> drawn;
  for (const auto& p : pictures) {
    write_file_atomic(scratch.path() / (p.file + ".gp"), p.script(p.file));
    run_gnuplot(p.file + ".gp", scratch.path());
    outputs.write(dir / p.file, read_text_file(scratch.path() / p.file), "--out");
    drawn.push_back(p.file);
  }
  return drawn;
}

}  // namespace hetperf::validate
