// Small helpers shared by the subcommands: where outputs go and how numbers are shown.
#pragma once

#include <cstdio>
#include <string>
#include <unistd.h>

namespace hetperf::cli {

inline bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

// A number with 4 significant digits and an SI-style suffix where it helps ("1.234e+06" -> "1.234 M").
inline std::string si(double v, const char* unit) {
  const char* prefix = "";
  double a = v < 0 ? -v : v;
  if (a >= 1e9)
    v /= 1e9, prefix = "G";
  else if (a >= 1e6)
    v /= 1e6, prefix = "M";
  else if (a >= 1e3)
    v /= 1e3, prefix = "k";
  else if (a > 0 && a < 1e-6)
    v *= 1e9, prefix = "n";
  else if (a > 0 && a < 1e-3)
    v *= 1e6, prefix = "u";
  else if (a > 0 && a < 1)
    v *= 1e3, prefix = "m";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s%s", v, prefix, unit);
  return buf;
}

}  // namespace hetperf::cli
