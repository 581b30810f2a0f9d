// A profile as a SimGrid platform file (see simgrid_export.hpp).
#include "hetperf/model/simgrid_export.hpp"

#include <cstdio>
#include <sstream>

#include "hetperf/model/error.hpp"

namespace hetperf {
namespace {

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// Every digit a double needs to come back equal.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string simgrid_platform_xml(const Profile& profile) {
  if (!(profile.network.bandwidth_bytes_per_s > 0)) {
    throw InputError((profile.file.empty() ? std::string("the profile") : profile.file) +
                     ": $.network.bandwidth_bytes_per_s: missing, needed by a SimGrid platform (its links)");
  }
  std::ostringstream x;
  x << "<?xml version='1.0'?>\n"
       "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
       // No "--" in a comment (XML forbids it): the options are named by their values, and the
       // profile's file name, which may hold one, goes in a property.
       "<!-- Written by hetperf's SimGrid export from the profile named by the zone's hetperf_profile.\n"
       "     hetperf's star network (DPS paper section 4): run SimGrid with the configuration\n"
       "     network/model:CM02 and network/crosstraffic:0 for the same network model. Host speeds are the\n"
       "     profile's MIPS in instructions per second (1 MI = 1e6 flops here). -->\n"
       "<platform version=\"4.1\">\n"
       "  <zone id=\"hetperf\" routing=\"Cluster\">\n"
       "    <prop id=\"hetperf_profile\" value=\""
    << xml_escaped(profile.file.empty() ? "a profile" : profile.file) << "\"/>\n";
  const std::string bandwidth = exact(profile.network.bandwidth_bytes_per_s) + "Bps";
  const std::string latency = exact(profile.network.latency_s / 2) + "s";
  for (const Computer& c : profile.computers) {
    const std::string id = xml_escaped(c.name);
    x << "    <host id=\"" << id << "\" speed=\"" << exact(c.mips * 1e6) << "f\" core=\"" << c.cores << "\">\n";
    auto prop = [&](const char* name, double value) {
      x << "      <prop id=\"hetperf_" << name << "\" value=\"" << exact(value) << "\"/>\n";
    };
    prop("main_memory_mb", c.main_memory_mb);
    prop("virtual_memory_mb", c.virtual_memory_mb);
    if (c.disk_read_bytes_per_s > 0) prop("disk_read_bytes_per_s", c.disk_read_bytes_per_s);
    if (c.disk_write_bytes_per_s > 0) prop("disk_write_bytes_per_s", c.disk_write_bytes_per_s);
    prop("overhead_latency_s", c.overhead_latency_s);
    x << "    </host>\n"
      << "    <link id=\"" << id << "-link\" bandwidth=\"" << bandwidth << "\" latency=\"" << latency
      << "\" sharing_policy=\"SPLITDUPLEX\"/>\n"
      << "    <host_link id=\"" << id << "\" up=\"" << id << "-link_UP\" down=\"" << id << "-link_DOWN\"/>\n";
  }
  x << "  </zone>\n</platform>\n";
  return x.str();
}

}  // namespace hetperf
