// Option checks whose messages read as people write numbers: CLI11's PositiveNumber answers
// "--processors 0" with "Value 0 not in range 0.000000 to 1797693134862315...(309 digits)".
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
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
// The text as it is echoed in a message: at most 80 characters.
inline std::string shown(const std::string& text) { return text.size() > 80 ? text.substr(0, 77) + "..." : text; }
}  // namespace detail

// A finite number > 0.
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!detail::parse_number(text, v) || !(v > 0)) return "expected a positive number, got " + detail::shown(text);
        return {};
      },
      "POSITIVE");
}

// A finite number >= 0.
inline CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!detail::parse_number(text, v) || !(v >= 0)) return "expected a number >= 0, got " + detail::shown(text);
        return {};
      },
      "NON-NEGATIVE");
}

// A seed: an integer in [0, 2^63 - 1], as a workload's "seed"; a larger one is an error, not clamped.
inline CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || v > static_cast<std::uint64_t>(INT64_MAX)) {
          return "expected an integer in [0, 9223372036854775807], got " + detail::shown(text);
        }
        return {};
      },
      "SEED");
}

}  // namespace hetperf::cli
