// Option checks whose messages read as people write numbers: CLI11's PositiveNumber answers
// "--processors 0" with "Value 0 not in range 0.000000 to 1797693134862315...(309 digits)".
#pragma once

#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

namespace hetperf::cli {

namespace detail {
inline bool parse_number(const std::string& text, double& value) {
  try {
    std::size_t used = 0;
    value = std::stod(text, &used);
    return used == text.size() && std::isfinite(value);
  } catch (const std::exception&) {
    return false;
  }
}
}  // namespace detail

// A finite number > 0.
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!detail::parse_number(text, v) || !(v > 0)) return "expected a positive number, got " + text;
        return {};
      },
      "POSITIVE");
}

// A finite number >= 0.
inline CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!detail::parse_number(text, v) || !(v >= 0)) return "expected a number >= 0, got " + text;
        return {};
      },
      "NON-NEGATIVE");
}

}  // namespace hetperf::cli
