// Fits t = l + s/b to measured redistributions (redistribution_fit.hpp).
#include "hetperf/calibrate/redistribution_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "hetperf/calibrate/polynomial_fit.hpp"
#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"

namespace hetperf::calibrate {

RedistributionFitSummary fit_redistribution(std::span<const RedistributionSample> samples, const std::string& name) {
  // Repeats of one resize (same bytes and rank counts) count once, by their median: the machine's
  // noise is in the repeats, and a single slow run should not pull the line.
  std::map<std::tuple<double, int, int>, std::vector<double>> groups;
  for (const auto& s : samples) {
    auto bad = [&](const std::string& what) { throw InputError(s.source + ": " + what); };
    if (!(s.bytes > 0) || !std::isfinite(s.bytes))
      bad("expected a positive number of bytes moved, got " + csv_number(s.bytes));
    if (s.from_ranks < 1 || s.to_ranks < 1 || s.from_ranks == s.to_ranks) {
      bad("expected two different rank counts >= 1, got " + std::to_string(s.from_ranks) + " -> " +
          std::to_string(s.to_ranks));
    }
    if (!(s.time_s > 0) || !std::isfinite(s.time_s)) bad("expected a positive time, got " + csv_number(s.time_s));
    groups[{s.bytes, s.from_ranks, s.to_ranks}].push_back(s.time_s);
  }
  if (groups.size() < 3) {
    throw InputError(name + ": expected at least 3 different measured redistributions (bytes or ranks), got " +
                     std::to_string(groups.size()));
  }
  std::vector<double> x, y;
  for (auto& [key, times] : groups) {
    std::sort(times.begin(), times.end());
    const std::size_t n = times.size();
    x.push_back(std::get<0>(key) / std::min(std::get<1>(key), std::get<2>(key)));
    y.push_back(n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2);
  }
  if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); })) {
    throw InputError(name + ": expected redistributions of at least two sizes (bytes per kept rank), all are " +
                     csv_number(x.front()));
  }
  PolynomialFitOptions o;
  o.name = name + ": redistribution t = l + s/b";
  o.parameter_names = {"latency_s", "seconds_per_byte"};
  o.relative_errors = true;
  RedistributionFitSummary out;
  out.fit = fit_polynomial(x, y, o);
  double l = out.fit.parameter("latency_s").value, g = out.fit.parameter("seconds_per_byte").value;
  if (l < 0) {
    // A negative start-up time has no meaning: the line through the origin instead.
    o.powers = {1};
    o.parameter_names = {"seconds_per_byte"};
    out.fit = fit_polynomial(x, y, o);
    l = 0;
    g = out.fit.parameter("seconds_per_byte").value;
  }
  if (!(g > 0))
    throw InputError(name + ": the redistribution time does not grow with the bytes moved (slope " + csv_number(g) +
                     " s/B): no bandwidth can be fitted");
  out.latency_s = l;
  out.bandwidth_bytes_per_s = 1 / g;
  return out;
}

}  // namespace hetperf::calibrate
