// A number as the console reports show it: 4 significant digits and an SI prefix where it helps.
//
//   si(1.234e6, "B/s")  ->  "1.234 MB/s"
//   si(2.5e-5, "s")     ->  "25 us"
#pragma once

#include <cstdio>
#include <string>

namespace hetperf {

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

}  // namespace hetperf
