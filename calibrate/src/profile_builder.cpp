// Builds a platform profile from measurement files.
#include "hetperf/calibrate/profile_builder.hpp"

#include <cmath>
#include <set>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/sha256.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf::calibrate {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct LineFit {
  double intercept = 0, slope = 0, r2 = 0;
};

// t = l + s/b by least squares weighted with 1/t² (relative errors), so the latency-bound small
// messages weigh as much as the bandwidth-bound large ones.
LineFit fit_latency_bandwidth(const std::vector<PingPongPoint>& points) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : points) {
    double x = static_cast<double>(p.size_bytes), y = p.one_way_s.mean, w = 1 / (y * y);
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  LineFit f;
  double det = sw * sxx - sx * sx;
  f.slope = (sw * sxy - sx * sy) / det;
  f.intercept = (sy - f.slope * sx) / sw;
  double mean = 0;
  for (const auto& p : points) mean += p.one_way_s.mean;
  mean /= static_cast<double>(points.size());
  double ss_res = 0, ss_tot = 0;
  for (const auto& p : points) {
    double pred = f.intercept + f.slope * static_cast<double>(p.size_bytes);
    ss_res += (p.one_way_s.mean - pred) * (p.one_way_s.mean - pred);
    ss_tot += (p.one_way_s.mean - mean) * (p.one_way_s.mean - mean);
  }
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return f;
}

nlohmann::json ci(const SampleSummary& s) {
  return {{"mean", s.mean}, {"ci95", {s.ci95_low, s.ci95_high}}, {"n", s.n}, {"precise", s.precise}};
}

}  // namespace

CalibrationInput load_measurement(const std::filesystem::path& path) {
  std::string bytes = read_text_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error&) {
    read_json_file(path);  // re-parse through the reader for its line:column message
  }
  CalibrationInput in;
  in.file = path.string();
  in.sha256 = sha256_hex(bytes);
  in.measurement = measurement_from_json(j, path.string());
  return in;
}

Profile build_profile(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options) {
  if (inputs.empty()) throw InputError("calibrate: expected at least one measurement file");
  Profile p;
  p.hetperf_version = kVersion;
  p.command = options.command;
  p.created_utc = utc_now_iso8601();
  std::set<std::string> names;
  std::vector<LineFit> net_fits;
  for (const CalibrationInput& in : inputs) {
    const Measurement& m = in.measurement;
    if (!m.cpu) throw InputError(in.file + ": $.probes.cpu: missing (a computer needs its MIPS; run `hetperf probe` with cpu)");
    if (!m.disk) throw InputError(in.file + ": $.probes.disk: missing (a computer needs disk throughputs; run `hetperf probe` with disk)");
    if (!m.complete) p.warnings.push_back(in.file + ": measurement was interrupted before it completed");
    Computer c;
    c.name = in.name.empty() ? m.machine : in.name;
    if (!names.insert(c.name).second) {
      throw InputError(in.file + ": $.machine: computer name '" + c.name +
                       "' is used by another measurement file (name them with --name)");
    }
    c.group = in.group;
    c.cores = m.host.cores;
    c.mips = m.cpu->mips.mean;
    c.main_memory_mb = static_cast<double>(m.host.memory_bytes) / kMiB;
    c.virtual_memory_mb = static_cast<double>(m.host.swap_bytes) / kMiB;
    if (c.main_memory_mb <= 0) throw InputError(in.file + ": $.host.memory_bytes: expected a positive number");
    c.disk_read_bytes_per_s = m.disk->read_direct_bytes_per_s.mean;
    c.disk_write_bytes_per_s = m.disk->write_direct_bytes_per_s.mean;
    c.fits = {{"mips", ci(m.cpu->mips)},
              {"mflops", ci(m.cpu->mflops)},
              {"mips_method", m.cpu->mips_method},
              {"disk_read_bytes_per_s", ci(m.disk->read_direct_bytes_per_s)},
              {"disk_write_bytes_per_s", ci(m.disk->write_direct_bytes_per_s)},
              {"disk_write_buffered_bytes_per_s", ci(m.disk->write_buffered_bytes_per_s)}};
    if (!m.disk->direct_io) p.warnings.push_back(c.name + ": disk throughput measured without O_DIRECT (" + m.disk->notes.front() + ")");
    // Memory slowdown is not measured by this probe version: α = 0 and the profile says so.
    p.warnings.push_back(c.name + ": memory slowdown not measured; α = 0 (no memory slowdown is predicted)");
    if (m.net) {
      const auto& pts = m.net->pingpong;
      if (pts.size() < 2) {
        throw InputError(in.file + ": $.probes.net.pingpong: expected at least 2 message sizes to fit t = l + s/b");
      }
      LineFit f = fit_latency_bandwidth(pts);
      if (!(f.slope > 0)) {
        throw InputError(in.file + ": $.probes.net.pingpong: one-way time does not grow with message size; cannot fit t = l + s/b");
      }
      net_fits.push_back(f);
      // lo: the seed's "overhead + latency", measured with 32-byte messages (seed 001 Table 1).
      double lo = f.intercept + 32 * f.slope;
      for (const auto& pt : pts) {
        if (pt.size_bytes == 32) lo = pt.one_way_s.mean;
      }
      c.overhead_latency_s = std::max(0.0, lo);
      c.fits["overhead_latency_s"] = {{"message_bytes", 32}, {"value", c.overhead_latency_s}};
    } else {
      p.warnings.push_back(c.name + ": network not measured; lo taken from the network model of the other machines");
    }
    p.computers.push_back(c);
    p.provenance.push_back({in.file, m.machine, m.host.time_utc, in.sha256});
  }
  if (net_fits.empty()) {
    throw InputError(inputs.front().file + ": $.probes.net: missing in every measurement file (the profile needs a network model)");
  }
  double l = 0, inv_b = 0, r2_min = 1;
  for (const auto& f : net_fits) {
    l += f.intercept, inv_b += f.slope, r2_min = std::min(r2_min, f.r2);
  }
  l /= static_cast<double>(net_fits.size());
  inv_b /= static_cast<double>(net_fits.size());
  p.network.latency_s = std::max(0.0, l);
  p.network.bandwidth_bytes_per_s = 1 / inv_b;
  p.network.fit = {{"model", "t = l + s/b, weighted least squares (weights 1/t^2) over the ping-pong sizes"},
                   {"measurement_files", net_fits.size()},
                   {"r2", r2_min}};
  if (r2_min < 0.9) p.warnings.push_back("network: fit of t = l + s/b has R^2 " + std::to_string(r2_min) + " < 0.9");
  for (Computer& c : p.computers) {
    if (!c.fits.contains("overhead_latency_s")) c.overhead_latency_s = p.network.latency_s + 32 / p.network.bandwidth_bytes_per_s;
  }
  return p;
}

}  // namespace hetperf::calibrate
