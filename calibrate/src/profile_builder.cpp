// Builds a platform profile from measurement files: one computer per file, the network per pair of hosts.
#include "hetperf/calibrate/profile_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "hetperf/calibrate/eager_limit.hpp"
#include "hetperf/calibrate/kernel_model_fit.hpp"
#include "hetperf/calibrate/memory_slowdown_fit.hpp"
#include "hetperf/calibrate/network_fit.hpp"
#include "hetperf/calibrate/send_buffer.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/sha256.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf::calibrate {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kLoMessageBytes = 32;  // UniMPP's net benchmark message size (UniMPP paper section 4)

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The central value of a probe's samples is their median. On a shared machine noise only slows a
// measurement (another tenant's burst, a flush, a migration), so a few slow samples drag the mean
// while the median stays with the undisturbed runs; the probes' outliers reach 2.5 times the median
// (docs/calibration.md). A file without "median" (hand-written) reads as its mean.
double central(const SampleSummary& s) { return s.median; }

// A measured figure: the median with its distribution-free 95% interval (order statistics of the
// samples) and the asymptotic standard error of a median, sqrt(pi/2) * stddev / sqrt(n). Without
// raw samples the interval is the file's t-interval of the mean.
nlohmann::json figure(const SampleSummary& s) {
  const double se_median =
      s.n > 1 ? std::sqrt(std::acos(-1.0) / 2) * s.stddev / std::sqrt(static_cast<double>(s.n)) : 0;
  auto [low, high] = s.samples.empty() ? std::pair{s.ci95_low, s.ci95_high} : median_ci95(s.samples);
  return {{"value", s.median},   {"statistic", "median"}, {"std_error", se_median},
          {"ci95", {low, high}}, {"mean", s.mean},        {"n", s.n},
          {"precise", s.precise}};
}

// A fit failing on the data of `file` at JSON `path` becomes an error naming both.
template <class Fit>
auto fit_at(const std::string& file, const std::string& path, Fit fit) {
  try {
    return fit();
  } catch (const InputError& e) {
    throw InputError(file + ": " + path + ": " + e.what());
  }
}

void check_finite(const std::string& file, const std::string& path, double v) {
  if (!std::isfinite(v)) throw InputError(file + ": " + path + ": expected a finite number, got NaN or infinity");
}

// The central value of the figure at JSON `path` of `file`, refused when not finite.
double checked_central(const std::string& file, const std::string& path, const SampleSummary& s) {
  check_finite(file, path + ".median", central(s));
  return central(s);
}

struct Builder {
  const CalibrationOptions& options;
  Calibration out;

  void record(FitRecord r) {
    const FitSummary& s = r.summary;
    if (r.r2_meaningful && s.r2 < options.poor_fit_r2) {
      out.profile.warnings.push_back("poor fit: " + s.name + ": R² " + fixed(s.r2) + " < " +
                                     fixed(options.poor_fit_r2));
    }
    if (!s.converged) out.profile.warnings.push_back("fit did not converge: " + s.name + ": " + s.termination);
    out.fits.push_back(std::move(r));
  }

  void cpu(const CalibrationInput& in, const CpuMeasurement& cpu, Computer& c) {
    c.mips = checked_central(in.file, "$.probes.cpu.mips", cpu.mips);
    checked_central(in.file, "$.probes.cpu.mflops", cpu.mflops);
    c.fits["mips"] = figure(cpu.mips);
    c.fits["mips_method"] = cpu.mips_method;
    c.fits["mflops"] = figure(cpu.mflops);
    // One model per kernel and shape: compact r x r blocks (rows 0) and, when the probe ran with
    // --lu-rows T, the block LU's own shapes in a T-row matrix (rows T).
    std::map<std::pair<std::string, std::uint64_t>, std::vector<const KernelTiming*>> by_kernel;
    for (const auto& k : cpu.kernels) by_kernel[{k.kernel, k.rows}].push_back(&k);
    for (const auto& [key, timings] : by_kernel) {
      const auto& [kernel, rows] = key;
      const std::string label = kernel + (rows ? " (LU shape, " + std::to_string(rows) + " rows)" : "");
      std::vector<double> x, y;
      std::vector<const KernelTiming*> sorted = timings;
      std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->block < b->block; });
      for (const auto* t : sorted) {
        x.push_back(static_cast<double>(t->block));
        y.push_back(checked_central(in.file, "$.probes.cpu.kernels (" + label + ").time_s", t->time_s));
      }
      // A model of p powers needs p + 1 block sizes (its uncertainty too); with fewer the profile
      // holds no model of this kernel and bind() names it for the LU jobs that need it.
      if (x.size() < kernel_model_powers(kernel).size() + 1) {
        out.profile.warnings.push_back(
            c.name + ": " + label + ": " + std::to_string(x.size()) + " block size(s) measured, a model needs " +
            std::to_string(kernel_model_powers(kernel).size() + 1) + "; no model (probe with more --blocks)");
        continue;
      }
      KernelModelFitOptions o{c.name + ": " + label + " time per call", kernel, rows};
      auto fit = fit_at(in.file, "$.probes.cpu.kernels (" + label + ")", [&] { return fit_kernel_model(x, y, o); });
      c.kernels.push_back(fit.model);
      c.fits["kernels"][rows ? kernel + "@" + std::to_string(rows) : kernel] = to_json(fit.fit);
      record({fit.fit, x, y, "block size r", label + " time per call (s)", true, true});
    }
    if (cpu.concurrency && !cpu.concurrency->speed.empty()) {
      // The probe's concurrent copies: the speed of the kernels beside others, at most one per core.
      c.concurrency_speed = cpu.concurrency->speed;
      c.concurrency_speed.resize(std::min(c.concurrency_speed.size(), static_cast<std::size_t>(c.cores)));
      c.fits["concurrency_speed"] = {{"rows", cpu.concurrency->rows},
                                     {"block", cpu.concurrency->block},
                                     {"calls_per_s", cpu.concurrency->rates},
                                     {"speed", cpu.concurrency->speed}};
    }
    if (cpu.time_slice && cpu.time_slice->slice_s > 0) {
      // The scheduler's slice: the ranks of an oversubscribed computer take turns of it on their cores
      // (time-sliced cores, communication_cpu.time_slice_s), and it is the hand-off's slice too (a rank
      // scheduled back in holds its core for the rest of it) where a profile's slices are removed;
      // `hetperf validate` reports that model's predictions beside these (docs/calibration.md).
      const nlohmann::json source = {{"source", "$.probes.cpu.time_slice"},
                                     {"processes", cpu.time_slice->processes},
                                     {"slice_s", cpu.time_slice->slice_s}};
      c.handoff_slice_s = c.time_slice_s =
          cpu.time_slice->slice_s;  // within 1e-5 to 1 s, as the measurement's reader checks
      c.fits["communication_cpu"]["handoff_slice_s"] = source;
      c.fits["communication_cpu"]["time_slice_s"] = source;
      c.fits["communication_cpu"]["time_slice_s"]["applied"] = true;
    }
    if (cpu.integration_step_s) {
      c.integration_step_s = checked_central(in.file, "$.probes.cpu.integration_step_s", *cpu.integration_step_s);
      c.fits["integration_step_s"] = figure(*cpu.integration_step_s);
    }
  }

  void memory(const CalibrationInput& in, const MemoryMeasurement& mem, Computer& c) {
    std::vector<double> x, y, se;
    for (std::size_t i = 0; i < mem.points.size(); ++i) {
      std::string path = "$.probes.memory.points[" + std::to_string(i) + "]";
      check_finite(in.file, path + ".occupied_mb", mem.points[i].occupied_mb);
      x.push_back(mem.points[i].occupied_mb);
      y.push_back(checked_central(in.file, path + ".slowdown", mem.points[i].slowdown));
      // The median's standard error from its 95% order-statistic interval (samples kept in the file).
      const auto [low, high] = median_ci95(mem.points[i].slowdown.samples);
      se.push_back((high - low) / (2 * 1.96));
    }
    MemorySlowdownFitOptions o;
    if (std::all_of(se.begin(), se.end(), [](double e) { return e > 0 && std::isfinite(e); })) {
      o.alpha_standard_errors = se;
    }
    o.name = c.name;
    // The knee the probe found in its data (where the reference first waited for swap-ins and α's
    // interval left the threshold) splits the curve; the emulated capacity where there is none.
    o.knee_mb = mem.knee_mb ? mem.knee_mb : mem.main_memory_mb;
    o.table_below_r2 = options.poor_fit_r2;
    auto fit = fit_at(in.file, "$.probes.memory.points", [&] { return fit_memory_slowdown(x, y, o); });
    if (mem.knee_mb) fit.knee_source = "the probe's knee (knee_mb: first swap-ins with α above knee_slowdown)";
    c.slowdown = fit.function();
    nlohmann::json j = {{"knee_mb", fit.knee_mb},
                        {"knee_source", fit.knee_source},
                        {"knee_interval_mb", {fit.knee_low_mb, fit.knee_high_mb}},
                        {"confinement", mem.confinement},
                        {"main", to_json(fit.main)},
                        {"main_flat", fit.main_flat}};
    if (fit.main_lack_of_fit_p) {
      j["main_lack_of_fit"] = {{"chi2", *fit.main_chi2},
                               {"dof", *fit.main_chi2_dof},
                               {"p", *fit.main_lack_of_fit_p},
                               {"test", "Σ ((median α − line) / its standard error)², χ² on points − 2"}};
    }
    if (mem.main_memory_mb) j["main_memory_mb"] = *mem.main_memory_mb;
    std::size_t split = 0;
    while (split < x.size() && x[split] <= fit.knee_mb) ++split;
    std::vector<double> x_main(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(split)),
        y_main(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(split));
    // A flat line (slope interval containing 0) is the honest result where the reference does not
    // compete below the knee: its R² compares noise with noise and is not a poor fit. Nor is a line
    // whose residuals the points' own noise explains (the lack-of-fit test), however small its R².
    record({fit.main, x_main, y_main, "occupied memory (MB)", "slowdown α (fraction)", false,
            !fit.main_flat && !fit.main_within_noise()});
    if (fit.swap) {
      j["swap"] = to_json(*fit.swap);
      j["swap_form"] = fit.swap_form;
      // A table replaces a poor exponential: the R² is reported in the fit, not as a warning.
      record({*fit.swap, std::vector<double>(x.begin() + static_cast<std::ptrdiff_t>(split), x.end()),
              std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(split), y.end()), "occupied memory (MB)",
              "slowdown α (fraction)", false, fit.swap_form == "exponential"});
      if (fit.swap_form == "table") {
        j["swap_form_reason"] = "exponential R² " + fixed(fit.swap->r2) + " < " + fixed(o.table_below_r2) +
                                ": the measured curve is interpolated (UniMPP paper section 2: the delay function is "
                                "the measured curve)";
      }
    } else {
      out.profile.warnings.push_back(
          c.name + ": memory slowdown beyond main memory (swap) not measured; α is the linear part extended");
    }
    // The probe emulates main memory with a cgroup far smaller than the machine, so the
    // computer keeps the host's own memory and swap, and the measured curve is stretched from the
    // emulated capacity to the real one: α is taken as a function of the occupied fraction of main
    // memory. That is an assumption, recorded here; without it a 24 GB host would be described as
    // the 128 MB experiment.
    if (mem.main_memory_mb && *mem.main_memory_mb < c.main_memory_mb) {
      const double scale = c.main_memory_mb / *mem.main_memory_mb;
      c.slowdown->main_memory_mb = fit.knee_mb * scale;
      c.slowdown->main.a_per_mb /= scale;
      if (c.slowdown->virtual_memory) c.slowdown->virtual_memory->d_per_mb /= scale;
      for (auto& p : c.slowdown->virtual_table) p.occupied_mb *= scale;
      j["scaled_to_host"] = {{"emulated_main_memory_mb", *mem.main_memory_mb},
                             {"host_main_memory_mb", c.main_memory_mb},
                             {"scale", scale},
                             {"assumption", "alpha depends on the occupied fraction of main memory"}};
    } else if (mem.main_memory_mb) {
      c.main_memory_mb = *mem.main_memory_mb;
      if (mem.swap_mb > 0) c.virtual_memory_mb = mem.swap_mb;
    }
    c.fits["memory_slowdown"] = j;
  }

  void disk(const CalibrationInput& in, const DiskMeasurement& d, Computer& c) {
    c.disk_read_bytes_per_s =
        checked_central(in.file, "$.probes.disk.read_direct_bytes_per_s", d.read_direct_bytes_per_s);
    c.disk_write_bytes_per_s =
        checked_central(in.file, "$.probes.disk.write_direct_bytes_per_s", d.write_direct_bytes_per_s);
    checked_central(in.file, "$.probes.disk.write_buffered_bytes_per_s", d.write_buffered_bytes_per_s);
    c.fits["disk_read_direct_bytes_per_s"] = figure(d.read_direct_bytes_per_s);
    c.fits["disk_write_direct_bytes_per_s"] = figure(d.write_direct_bytes_per_s);
    c.fits["disk_write_buffered_bytes_per_s"] = figure(d.write_buffered_bytes_per_s);
    c.fits["disk_notes"] = d.notes;
    if (!d.direct_io) {
      out.profile.warnings.push_back(c.name + ": disk throughput measured without O_DIRECT" +
                                     (d.notes.empty() ? std::string() : " (" + d.notes.front() + ")"));
    }
  }
};

// The ping-pong points of one pair of hosts, from every file that measured it.
struct PairData {
  std::vector<std::string> hosts;
  std::map<std::uint64_t, std::vector<double>> times_by_size;
  std::vector<std::size_t> inputs;
  const LogGPParameters* loggp = nullptr;  // from the first file of the pair that measured it
};

// The files that measured a pair, for messages.
std::string pair_source(const std::vector<CalibrationInput>& inputs, const PairData& pair) {
  std::string where = inputs[pair.inputs.front()].file;
  if (pair.inputs.size() > 1) where += " (and " + std::to_string(pair.inputs.size() - 1) + " more files of this pair)";
  return where;
}

std::vector<std::string> pair_hosts(const NetMeasurement& net, const std::string& machine) {
  std::vector<std::string> h = net.hosts;
  if (h.empty()) h = {machine};
  if (h.size() == 1) h.push_back(h.front());
  h.resize(2);
  std::sort(h.begin(), h.end());
  return h;
}

struct NetworkResult {
  double latency_s = 0, bandwidth_bytes_per_s = 0;
  std::vector<MessageRegime> regimes;
  nlohmann::json fit;
  NetworkFitSummary summary;
};

// Fits, per size, the mean over files of the median one-way times in `times_by_size`, split at the
// measured protocol switches `limits`, and describes the result, including what LogGP parameters a
// ping-pong determines.
NetworkResult fit_pair(Builder& b, const std::string& name, const std::string& where,
                       const std::map<std::uint64_t, std::vector<double>>& times_by_size, const LogGPParameters* loggp,
                       const std::vector<double>& limits) {
  std::vector<double> x, y;
  for (const auto& [size, times] : times_by_size) {
    double sum = 0;
    for (double t : times) sum += t;
    x.push_back(static_cast<double>(size));
    y.push_back(sum / static_cast<double>(times.size()));
  }
  const NetworkFitOptions o{.name = name, .protocol_limits_bytes = limits};
  NetworkResult r;
  r.summary = fit_at(where, "$.probes.net.pingpong", [&] { return fit_network(x, y, o); });
  const NetworkFitSummary& s = r.summary;
  double inv_b = s.overall.parameter("seconds_per_byte").value;
  if (!(inv_b > 0)) {
    throw InputError(where +
                     ": $.probes.net.pingpong: one-way time does not grow with message size; cannot fit t = l + s/b");
  }
  r.latency_s = std::max(0.0, s.overall.parameter("latency_s").value);
  if (s.overall.parameter("latency_s").value < 0) {
    b.out.profile.warnings.push_back(name + ": fitted latency is negative (" +
                                     fixed(s.overall.parameter("latency_s").value) + " s); set to 0");
  }
  r.bandwidth_bytes_per_s = 1 / inv_b;
  nlohmann::json regimes = nlohmann::json::array();
  for (const auto& g : s.regimes) {
    r.regimes.push_back({g.min_size_bytes, g.latency_s, g.seconds_per_byte});
    regimes.push_back(to_json(g, o.outlier_threshold));
    std::vector<double> gx, gy;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i] >= static_cast<double>(g.min_size_bytes) && x[i] <= static_cast<double>(g.max_size_bytes)) {
        gx.push_back(x[i]), gy.push_back(y[i]);
      }
    }
    b.record({g.fit, gx, gy, "message size (bytes)", "one-way time (s)", true, g.slope_meaningful()});
  }
  b.record({s.overall, x, y, "message size (bytes)", "one-way time (s)", true, true});
  const NetworkRegime& last = s.regimes.back();
  double lo = s.time_s(kLoMessageBytes);
  if (auto it = times_by_size.find(static_cast<std::uint64_t>(kLoMessageBytes)); it != times_by_size.end()) {
    lo = y[static_cast<std::size_t>(std::distance(times_by_size.begin(), it))];
  }
  r.fit = {{"model",
            "t = l + s/b per protocol regime, weighted least squares on relative errors (weights 1/t²) "
            "over the per-size median one-way times; breakpoints by dynamic programming"},
           {"overall", to_json(s.overall)},
           {"regimes", regimes},
           {"piecewise_r2", s.piecewise_r2},
           {"selection", s.selection},
           {"piecewise_r2_note",
            "regimes with r2_meaningful false have a slope indistinguishable from 0; their R² "
            "compares noise with noise and raises no warning"}};
  if (loggp) {
    // LogGP measured the Netgauge way by the probe; o is the mean of the send and receive overheads.
    double o = (central(loggp->send_overhead_s) + central(loggp->receive_overhead_s)) / 2;
    r.fit["loggp"] = {{"source", "measured ($.probes.net.loggp)"},
                      {"L_s", loggp->latency_s},
                      {"o_send_s", figure(loggp->send_overhead_s)},
                      {"o_receive_s", figure(loggp->receive_overhead_s)},
                      {"o_s", o},
                      {"g_s", figure(loggp->gap_s)},
                      {"G_s_per_byte", loggp->gap_per_byte_s},
                      {"G_s_per_byte_from_fit", last.seconds_per_byte},
                      {"small_size_bytes", loggp->small_size_bytes},
                      {"large_size_bytes", loggp->large_size_bytes},
                      {"lo_s", lo},
                      {"lo_from_loggp_s", 2 * o + loggp->latency_s}};
  } else {
    r.fit["loggp"] = {{"source", "derived from the ping-pong fit"},
                      {"lo_s", lo},
                      {"L_plus_2o_s", lo},
                      {"G_s_per_byte", last.seconds_per_byte},
                      {"L_s", nullptr},
                      {"o_s", nullptr},
                      {"g_s", nullptr},
                      {"note",
                       "a ping-pong gives the one-way time of a 32-byte message, lo = L + 2o (UniMPP paper eq. 7), "
                       "and the per-byte gap G of the largest-size regime; L, o and g are not separable without "
                       "the probe's LogGP measurement ($.probes.net.loggp), which this file does not hold"}};
  }
  return r;
}

}  // namespace

CalibrationInput load_measurement(const std::filesystem::path& path) {
  std::string bytes = read_text_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error&) {
    read_json_file(path);  // re-parse through the reader for its line:column message
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path.string() + ": invalid JSON: " + e.what());  // e.g. a number overflowing a double
  }
  CalibrationInput in;
  in.file = path.string();
  in.sha256 = sha256_hex(bytes);
  in.measurement = measurement_from_json(j, path.string());
  return in;
}

namespace {

// The network's send buffer from the ping-pongs' timed sends between two hosts (PingPongPoint::send_s):
// each sample is a send whose receiver waited, fitted as the applications' sends are
// (send_buffer.hpp). Absent without such samples, or with too few to fit; the line the fit reports is
// kept in its record.
std::optional<SendBuffer> send_buffer_from_probes(const std::vector<CalibrationInput>& inputs,
                                                  const NetworkModel& network) {
  std::vector<NetworkSend> sends;
  for (const CalibrationInput& in : inputs) {
    const auto& net = in.measurement.net;
    if (!net || !net->between_hosts()) continue;
    for (const PingPongPoint& pt : net->pingpong) {
      if (!pt.send_s) continue;
      for (double d : pt.send_s->samples) sends.push_back({pt.size_bytes, d, false, in.file});
    }
  }
  if (sends.empty()) return std::nullopt;
  std::vector<std::string> report;
  auto buffer = fit_send_buffer(sends, network, report);
  if (buffer) {
    buffer->fit["source"] = "$.probes.net.pingpong[*].send_s (the ping-pong's sends to a waiting receiver)";
    buffer->fit["report"] = report.empty() ? std::string() : report.front();
  }
  return buffer;
}

}  // namespace

Calibration calibrate_platform(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options) {
  if (inputs.empty()) throw InputError("calibrate: expected at least one measurement file");
  Builder b{options, {}};
  Profile& p = b.out.profile;
  p.hetperf_version = kVersion;
  p.command = options.command;
  p.created_utc = utc_now_iso8601();
  std::set<std::string> names;
  std::map<std::vector<std::string>, PairData> pairs;
  std::vector<std::optional<double>> measured_lo(inputs.size());
  std::vector<std::string> unmeasured_net;
  for (std::size_t idx = 0; idx < inputs.size(); ++idx) {
    const CalibrationInput& in = inputs[idx];
    const Measurement& m = in.measurement;
    if (!m.cpu)
      throw InputError(in.file + ": $.probes.cpu: missing (a computer needs its MIPS; run `hetperf probe` with cpu)");
    if (!m.complete) p.warnings.push_back(in.file + ": measurement was interrupted before it completed");
    Computer c;
    c.name = in.name.empty() ? m.machine : in.name;
    if (!names.insert(c.name).second) {
      throw InputError(in.file + ": $.machine: computer name '" + c.name +
                       "' is used by another measurement file (name them with --name)");
    }
    c.group = in.group;
    c.cores = m.host.cores;
    c.main_memory_mb = static_cast<double>(m.host.memory_bytes) / kMiB;
    c.virtual_memory_mb = static_cast<double>(m.host.swap_bytes) / kMiB;
    b.cpu(in, *m.cpu, c);
    if (m.memory) {
      b.memory(in, *m.memory, c);
    } else {
      p.warnings.push_back(c.name + ": memory slowdown not measured; α = 0 (no memory slowdown is predicted)");
    }
    if (!(c.main_memory_mb > 0)) throw InputError(in.file + ": $.host.memory_bytes: expected a positive number");
    if (m.disk) {
      b.disk(in, *m.disk, c);
    } else {
      p.warnings.push_back(c.name + ": disk not measured; workloads that read or write its disk are refused");
    }
    if (m.net) {
      PairData& pair = pairs[pair_hosts(*m.net, m.machine)];
      pair.hosts = pair_hosts(*m.net, m.machine);
      pair.inputs.push_back(idx);
      if (!pair.loggp && m.net->loggp) pair.loggp = &*m.net->loggp;
      for (std::size_t i = 0; i < m.net->pingpong.size(); ++i) {
        const PingPongPoint& pt = m.net->pingpong[i];
        std::string path = "$.probes.net.pingpong[" + std::to_string(i) + "]";
        const double one_way_s = checked_central(in.file, path + ".one_way_s", pt.one_way_s);
        pair.times_by_size[pt.size_bytes].push_back(one_way_s);
        if (pt.size_bytes == kLoMessageBytes) measured_lo[idx] = one_way_s;
      }
      if (const auto& h = m.net->handoff) {
        // The probe's fan-out among oversubscribed ranks: a figure of this computer's scheduler and MPI,
        // not of an application, so profiles built from probes alone predict oversubscribed runs too.
        c.oversubscribed_handoff_s = h->handoff_s;
        nlohmann::json& f = c.fits["communication_cpu"]["handoff_s"];
        f = {{"source", "$.probes.net.handoff"},
             {"cores", h->cores},
             {"bytes", h->bytes},
             {"period_oversubscribed_s", h->period_oversubscribed_s.mean},
             {"handoff_s", h->handoff_s}};
        if (h->period_at_cores_s) f["period_at_cores_s"] = h->period_at_cores_s->mean;
      }
    } else {
      unmeasured_net.push_back(c.name);
    }
    p.computers.push_back(std::move(c));
    p.provenance.push_back({in.file, m.machine, m.host.time_utc, in.sha256});
  }
  if (pairs.empty()) {
    // A partial profile: no network model, no lo; workloads that send messages are refused.
    p.warnings.push_back("network not measured on any computer; workloads that send messages are refused");
    return std::move(b.out);
  }
  for (const std::string& name : unmeasured_net) {
    p.warnings.push_back(name + ": network not measured; lo taken from the network model of the other machines");
  }
  std::map<std::uint64_t, std::vector<double>> all_sizes;
  std::vector<std::optional<double>> pair_lo(inputs.size());
  const auto eager = file_eager_limits(inputs);
  for (auto& [key, pair] : pairs) {
    const std::string where = pair_source(inputs, pair);
    NetworkResult r = fit_pair(b, "network " + key[0] + " <-> " + key[1], where, pair.times_by_size, pair.loggp,
                               protocol_limits(eager, pair.inputs));
    for (std::size_t idx : pair.inputs) pair_lo[idx] = r.fit["loggp"]["lo_s"].get<double>();
    for (const auto& [size, times] : pair.times_by_size) {
      for (double t : times) all_sizes[size].push_back(t);
    }
    p.network.pairs.push_back({key, r.latency_s, r.bandwidth_bytes_per_s, r.regimes, r.fit});
  }
  LinkModel all = p.network.pairs.front();  // the only pair's, or all pairs' pooled
  if (p.network.pairs.size() > 1) {
    NetworkResult r = fit_pair(b, "network (all pairs)", inputs.front().file + " (and the other files)", all_sizes,
                               nullptr, protocol_limits(eager));
    all = {{}, r.latency_s, r.bandwidth_bytes_per_s, r.regimes, r.fit};
  }
  p.network.latency_s = all.latency_s;
  p.network.bandwidth_bytes_per_s = all.bandwidth_bytes_per_s;
  p.network.regimes = all.regimes;
  p.network.fit = all.fit;
  p.network.send_buffer = send_buffer_from_probes(inputs, p.network);
  eager_limits_from_probes(inputs, eager, p);
  double network_lo = p.network.latency_s + kLoMessageBytes / p.network.bandwidth_bytes_per_s;
  for (std::size_t idx = 0; idx < inputs.size(); ++idx) {
    Computer& c = p.computers[idx];
    // lo: UniMPP's "overhead + latency" with 32-byte messages (UniMPP paper Table 1), measured when the
    // file holds that size, else read off the pair's fit, else the whole network's.
    double lo = measured_lo[idx] ? *measured_lo[idx] : pair_lo[idx] ? *pair_lo[idx] : network_lo;
    const char* source = measured_lo[idx] ? "measured at 32 bytes"
                         : pair_lo[idx]   ? "fitted network model of this host's pair at 32 bytes"
                                          : "fitted network model of the other machines at 32 bytes";
    c.overhead_latency_s = std::max(0.0, lo);
    c.fits["overhead_latency_s"] = {
        {"message_bytes", kLoMessageBytes}, {"value", c.overhead_latency_s}, {"source", source}};
  }
  return std::move(b.out);
}

Profile build_profile(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options) {
  return calibrate_platform(inputs, options).profile;
}

}  // namespace hetperf::calibrate
