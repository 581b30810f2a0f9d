// The probe's console report (console_report.hpp).
#include "hetperf/probes/console_report.hpp"

#include <cstdio>
#include <sstream>

#include "hetperf/model/si_text.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf::probes {
namespace {

// A probe's figure: its mean, its 95% interval and samples.
std::string figure(const SampleSummary& s, const char* unit, double scale = 1) {
  std::ostringstream o;
  o << si(s.mean * scale, unit) << "  (95% CI " << si(s.ci95_low * scale, "") << ".." << si(s.ci95_high * scale, "")
    << ", n=" << s.n << (s.precise ? "" : ", imprecise: time cap hit") << ")";
  return o.str();
}

// The memory probe's lines: its settings, each point's slowdown, the knee and the notes.
void print_memory(const MemoryMeasurement& mm, std::ostream& os) {
  os << "  memory  " << mm.confinement << ", swap " << mm.swap_mb << " MB"
     << (mm.swap_measured ? "" : " (swap region not measured)");
  if (const auto passes = mm.settings.find("passes"); passes != mm.settings.end()) {
    os << ", " << passes->dump() << (passes->dump() == "1" ? " ascent" : " ascents pooled");
  }
  if (const auto d = mm.settings.find("device_read_s"); d != mm.settings.end() && d->is_number()) {
    char device[80];
    std::snprintf(device, sizeof device, ", alpha at a swap device read of %.0f us", d->get<double>() * 1e6);
    os << device;
  }
  os << "\n";
  // Each point's figure is its median with the order-statistic interval (memory_probe.hpp).
  for (const auto& p : mm.points) {
    const auto [low, high] = median_ci95(p.slowdown.samples);
    char line[200];
    std::snprintf(line, sizeof line, "%8.1f MB occupied: slowdown %8.3f  (median, 95%% CI %.3f..%.3f, n=%zu%s)",
                  p.occupied_mb, p.slowdown.median, low, high, p.slowdown.n,
                  p.slowdown.precise ? "" : ", imprecise: time cap hit");
    os << "        " << line;
    if (p.reference_major_faults) os << "  swap-ins/round " << *p.reference_major_faults;
    if (p.transient_rounds && *p.transient_rounds > 0) os << "  transient cut: " << *p.transient_rounds << " rounds";
    if (p.device_scale && p.device_read_s) {
      char device[96];
      std::snprintf(device, sizeof device, "  swap device reads %.0f us: excess x %.2f", *p.device_read_s * 1e6,
                    *p.device_scale);
      os << device;
    }
    os << "\n";
  }
  if (mm.knee_mb) {
    os << "          knee at " << si(*mm.knee_mb, "MB");
    if (mm.main_memory_mb) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " (%+.1f%% of the %.0f MB limit)", 100 * (*mm.knee_mb / *mm.main_memory_mb - 1),
                    *mm.main_memory_mb);
      os << pct;
    }
    os << "\n";
  }
  for (const auto& n : mm.notes) os << "          note: " << n << "\n";
}

}  // namespace

void print_measurement(const Measurement& m, const std::string& out, std::ostream& os) {
  os << "machine " << m.machine << " (" << m.host.cpu_model << ", " << m.host.cores << " cores)"
     << (m.complete ? "" : "  INCOMPLETE: interrupted") << "\n";
  for (const auto& n : m.host.notes) os << "  warning: " << n << "\n";
  if (m.cpu) {
    os << "  cpu     MIPS        " << figure(m.cpu->mips, "") << "\n"
       << "          MFLOPS      " << figure(m.cpu->mflops, "") << "\n"
       << "          MIPS method " << m.cpu->mips_method << "\n";
    for (const auto& k : m.cpu->kernels) {
      os << "          " << k.kernel << " r=" << k.block << "  " << figure(k.time_s, "s") << "\n";
    }
    if (m.cpu->integration_step_s) os << "          trapezium step " << figure(*m.cpu->integration_step_s, "s") << "\n";
  }
  if (m.memory) print_memory(*m.memory, os);
  if (m.disk) {
    os << "  disk    write       " << figure(m.disk->write_buffered_bytes_per_s, "B/s") << " buffered+fdatasync\n"
       << "          write       " << figure(m.disk->write_direct_bytes_per_s, "B/s")
       << (m.disk->direct_io ? " O_DIRECT\n" : " (no O_DIRECT)\n") << "          read        "
       << figure(m.disk->read_direct_bytes_per_s, "B/s") << (m.disk->direct_io ? " O_DIRECT\n" : " (no O_DIRECT)\n");
    for (const auto& n : m.disk->notes) os << "          note: " << n << "\n";
    for (const auto& p : m.disk->buffer_sweep) {
      os << "          buffer " << si(static_cast<double>(p.buffer_bytes), "B") << ": write "
         << si(p.write_bytes_per_s.mean, "B/s") << ", read " << si(p.read_bytes_per_s.mean, "B/s") << "\n";
    }
  }
  if (m.net) {
    os << "  net     transport " << m.net->transport << "\n";
    for (const auto& p : m.net->pingpong) {
      os << "          " << std::to_string(p.size_bytes) << " B one-way: " << figure(p.one_way_s, "s") << "\n";
    }
    if (m.net->bandwidth_bytes_per_s) os << "          bandwidth " << si(*m.net->bandwidth_bytes_per_s, "B/s") << "\n";
    if (const auto& g = m.net->loggp) {
      os << "          LogGP o_s " << si(g->send_overhead_s.mean, "s") << ", o_r "
         << si(g->receive_overhead_s.mean, "s") << ", g " << si(g->gap_s.mean, "s") << ", G "
         << si(g->gap_per_byte_s, "s/B") << ", L " << si(g->latency_s, "s") << "\n";
    }
    if (const auto& h = m.net->handoff) {
      os << "          hand-off " << si(h->handoff_s, "s") << " (fan-out of " << si(static_cast<double>(h->bytes), "B")
         << " on " << 2 * h->cores << " ranks, " << h->cores << " cores)\n";
    }
  }
  for (const auto& s : m.skipped) os << "  skipped " << s.probe << ": " << s.reason << "\n";
  os << "wrote " << out << "\n";
}

}  // namespace hetperf::probes
