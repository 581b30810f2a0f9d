// Simulated time as its own type: a point in time (Time) and a span (Duration), both in seconds.
// Distinct types so that a point is never added to a point, nor a rate taken for a time; the
// arithmetic that makes sense (Time + Duration, Time − Time) is all there is.
#pragma once

#include <compare>
#include <limits>

namespace hetperf::sim {

class Duration {
 public:
  constexpr Duration() = default;
  constexpr explicit Duration(double seconds) : s_(seconds) {}
  static constexpr Duration infinite() { return Duration(std::numeric_limits<double>::infinity()); }
  constexpr double s() const { return s_; }
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(s_ + o.s_); }
  constexpr Duration operator-(Duration o) const { return Duration(s_ - o.s_); }
  constexpr Duration operator*(double k) const { return Duration(s_ * k); }

 private:
  double s_ = 0;
};

class Time {
 public:
  constexpr Time() = default;
  constexpr explicit Time(double seconds) : s_(seconds) {}
  static constexpr Time never() { return Time(std::numeric_limits<double>::infinity()); }
  constexpr double s() const { return s_; }
  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return Time(s_ + d.s()); }
  constexpr Duration operator-(Time o) const { return Duration(s_ - o.s_); }

 private:
  double s_ = 0;
};

}  // namespace hetperf::sim
