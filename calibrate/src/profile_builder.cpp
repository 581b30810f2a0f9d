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
#include "figures.hpp"
#include "profile_network.hpp"

namespace hetperf::calibrate {
namespace {

using namespace detail;

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
    // Recorded, not applied: on the duo testbed it took the jobs across computers from -9.7% to -5.0%,
    // on this VM's quick matrix from -4.6% to -5.2% (docs/calibration.md, "Re-touched pages"). Its fit
    // holds the profile's page_retouch fields (ages_s, cost_per_page_s, cap_s), to apply.
    if (cpu.page_retouch) c.fits["page_retouch"] = page_retouch_fit(*cpu.page_retouch);
    if (cpu.integration_step_s) {
      c.integration_step_s = checked_central(in.file, "$.probes.cpu.integration_step_s", *cpu.integration_step_s);
      c.fits["integration_step_s"] = figure(*cpu.integration_step_s);
    }
  }

  // The profile's page_retouch from the probe, with the probe's medians (fits.page_retouch).
  static nlohmann::json page_retouch_fit(const PageRetouchMeasurement& m) {
    // Each gap's pass less the pass at gap 0, over `per` (the pages, or 1 for the cap), made
    // non-decreasing with the gap (a page left longer is not cheaper: a lower median is noise).
    const auto extra = [](const std::vector<double>& t, double per, double most) {
      std::vector<double> out;
      for (double x : t)
        out.push_back(std::max(std::clamp((x - t.front()) / per, 0.0, most), out.empty() ? 0 : out.back()));
      return out;
    };
    PageRetouch r;
    r.ages_s = m.gaps_s;
    const double pages = static_cast<double>(m.pages);
    r.cost_per_page_s = extra(m.touch_s, pages, 0.01);
    if (m.cap_pages > 0) {
      r.cap_s = extra(m.cap_touch_s, 1, 10);
      // Under a cap the small buffer's pass is cap · (1 − exp(−pages · cost / cap)) (PageRetouch::charge_s):
      // the cost per page that gives it, the pass taken at most 0.95 of the cap.
      for (std::size_t i = 0; i < r.ages_s.size(); ++i) {
        const double cap = r.cap_s[i], e = r.cost_per_page_s[i] * pages;
        if (cap > 0 && e > 0) r.cost_per_page_s[i] = -cap * std::log1p(-std::min(e, 0.95 * cap) / cap) / pages;
      }
      for (std::size_t i = 1; i < r.ages_s.size(); ++i)
        r.cost_per_page_s[i] = std::max(r.cost_per_page_s[i], r.cost_per_page_s[i - 1]);
    }
    nlohmann::json fit = to_json(r);  // the profile's page_retouch, to apply
    fit.update({{"source", "$.probes.cpu.page_retouch"},
                {"applied", false},
                {"pages", m.pages},
                {"rounds", m.rounds},
                {"touch_s", m.touch_s}});
    if (m.cap_pages > 0) fit.update({{"cap_pages", m.cap_pages}, {"cap_touch_s", m.cap_touch_s}});
    return fit;
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

// One computer from its measurement file: its capacities and the fits of its cpu, memory and disk.
Computer computer_from(Builder& b, const CalibrationInput& in, std::set<std::string>& names) {
  const Measurement& m = in.measurement;
  Profile& p = b.out.profile;
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
  return c;
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
  NetworkData net;
  net.measured_lo.resize(inputs.size());
  for (std::size_t idx = 0; idx < inputs.size(); ++idx) {
    const CalibrationInput& in = inputs[idx];
    Computer c = computer_from(b, in, names);
    gather_network(in, idx, c, net);
    p.computers.push_back(std::move(c));
    p.provenance.push_back({in.file, in.measurement.machine, in.measurement.host.time_utc, in.sha256});
  }
  if (net.pairs.empty()) {
    // A partial profile: no network model, no lo; workloads that send messages are refused.
    p.warnings.push_back("network not measured on any computer; workloads that send messages are refused");
    return std::move(b.out);
  }
  for (const std::string& name : net.unmeasured) {
    p.warnings.push_back(name + ": network not measured; lo taken from the network model of the other machines");
  }
  const auto pair_lo = fit_network_pairs(
      inputs, net, [&b](FitRecord r) { b.record(std::move(r)); }, p);
  set_overhead_latency(p, net, pair_lo);
  return std::move(b.out);
}

Profile build_profile(const std::vector<CalibrationInput>& inputs, const CalibrationOptions& options) {
  return calibrate_platform(inputs, options).profile;
}

}  // namespace hetperf::calibrate
