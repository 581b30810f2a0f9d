// Number formatting shared by the validation's reports and its console lines.
#pragma once

#include <cstdio>
#include <string>

namespace hetperf::validate::text {

inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// 0.123 -> "12.3%"
inline std::string percent(double v) { return fixed(100 * v, 1) + "%"; }

}  // namespace hetperf::validate::text
