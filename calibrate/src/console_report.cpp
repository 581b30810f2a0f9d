// The calibration's console report (console_report.hpp).
#include "hetperf/calibrate/console_report.hpp"

#include <cstdio>

#include "hetperf/model/si_text.hpp"

namespace hetperf::calibrate {

// One line per computer, and the network's.
void print_profile_table(const Profile& p, std::ostream& os) {
  os << "computer            cores        MIPS   memory MB    read B/s   write B/s          lo\n";
  const bool network = p.network.bandwidth_bytes_per_s > 0;
  // "-": not measured (a partial profile).
  auto measured = [](double v, const char* unit) { return v > 0 ? si(v, unit) : std::string("-"); };
  for (const Computer& c : p.computers) {
    char line[256];
    std::snprintf(line, sizeof line, "%-18s %6d %11.1f %11.0f %11s %11s %11s\n", c.name.c_str(), c.cores, c.mips,
                  c.main_memory_mb, measured(c.disk_read_bytes_per_s, "").c_str(),
                  measured(c.disk_write_bytes_per_s, "").c_str(),
                  network ? si(c.overhead_latency_s, "s").c_str() : "-");
    os << line;
  }
  if (network) {
    os << "network: l = " << si(p.network.latency_s, "s") << ", b = " << si(p.network.bandwidth_bytes_per_s, "B/s")
       << ", " << p.network.regimes.size() << " regime(s), " << p.network.pairs.size() << " pair(s)\n";
  } else {
    os << "network: not measured\n";
  }
}

void print_fit_report(const Calibration& cal, std::ostream& os) {
  os << "fits (" << cal.fits.size() << "):\n";
  for (const auto& r : cal.fits) {
    os << "  " << r.summary.brief_report();
    if (!r.r2_meaningful) os << " (flat regime: R² not a quality measure)";
    os << "\n";
  }
  for (const Computer& c : cal.profile.computers) {
    if (!c.fits.contains("mips")) continue;
    const auto& m = c.fits["mips"];
    const auto& f = c.fits["mflops"];
    os << "  " << c.name << ": MIPS " << m["value"].get<double>() << " [" << m["ci95"][0].get<double>() << ", "
       << m["ci95"][1].get<double>() << "], MFLOPS " << f["value"].get<double>() << " [" << f["ci95"][0].get<double>()
       << ", " << f["ci95"][1].get<double>() << "]\n";
    for (const char* key :
         {"disk_read_direct_bytes_per_s", "disk_write_direct_bytes_per_s", "disk_write_buffered_bytes_per_s"}) {
      // Absent where the disk was not probed (a testbed's computers share the host's disk).
      if (!c.fits.contains(key)) continue;
      const auto& d = c.fits[key];
      os << "  " << c.name << ": " << key << " " << si(d["value"].get<double>(), "") << " ["
         << si(d["ci95"][0].get<double>(), "") << ", " << si(d["ci95"][1].get<double>(), "") << "]\n";
    }
  }
}

}  // namespace hetperf::calibrate
