#include "timelines.hpp"

#include <algorithm>
#include <cmath>

namespace hetperf::sim::detail {

namespace {
constexpr double kTimelineStart = 1.0 / (1 << 20);  // s, the first interval
}  // namespace

Timelines::Timelines(std::size_t computers, std::size_t points)
    : points_(points),
      interval_(points > 0 ? kTimelineStart : 0.0),
      busy_(computers, std::vector<double>(points, 0.0)),
      memory_(computers, std::vector<double>(points, 0.0)) {}

void Timelines::record(std::size_t c, double t0, double t1, double utilisation, double memory_mb) {
  if (points_ == 0) return;
  // Compared as doubles: t1 / interval_ may be past what a size_t holds (1e15 s at the first interval of
  // 2^-20 s), and converting it would be undefined (it wrapped to a small count: no coarsening, and the
  // loop below walked 1e21 buckets).
  while (t1 / interval_ >= static_cast<double>(points_) && t1 > t0) coarsen();
  auto k = static_cast<std::size_t>(t0 / interval_);
  while (t0 < t1) {
    const double end = std::min(t1, static_cast<double>(k + 1) * interval_);
    const std::size_t slot = std::min(k, points_ - 1);
    busy_[c][slot] += utilisation * (end - t0);
    memory_[c][slot] += memory_mb * (end - t0);
    t0 = end;
    ++k;
  }
}

void Timelines::coarsen() {
  interval_ *= 2;
  for (std::size_t c = 0; c < busy_.size(); ++c) {
    for (std::size_t k = 0; k < points_; ++k) {
      double busy = 0, memory = 0;
      for (std::size_t j = 2 * k; j < std::min(2 * k + 2, points_); ++j) {
        busy += busy_[c][j];
        memory += memory_[c][j];
      }
      busy_[c][k] = busy;
      memory_[c][k] = memory;
    }
  }
}

ComputerTimeline Timelines::timeline(std::size_t c, double end_s) const {
  ComputerTimeline tl;
  if (points_ == 0 || !(end_s > 0)) return tl;
  tl.interval_s = interval_;
  const auto points =
      static_cast<std::size_t>(std::min(static_cast<double>(points_), std::floor(end_s / interval_) + 1));
  for (std::size_t k = 0; k < points; ++k) {
    const double covered = std::min(interval_, end_s - static_cast<double>(k) * interval_);
    if (covered <= 0) break;
    tl.utilisation.push_back(std::min(1.0, busy_[c][k] / covered));
    tl.memory_mb.push_back(memory_[c][k] / covered);
  }
  return tl;
}

}  // namespace hetperf::sim::detail
