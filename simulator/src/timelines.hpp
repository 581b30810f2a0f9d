// Per computer, its utilisation and memory over the run, integrated over at most `points` buckets of
// one interval: the interval starts at 2^-20 s and doubles, merging pairs of buckets, whenever a time
// past the last bucket is recorded. Internal to the UniMPP simulation (unimpp_simulation.cpp).
//
//   Timelines t(2, 100);            // 2 computers, at most 100 points each
//   t.record(0, 0.0, 1.5, 0.5, 64);  // computer 0: half its cores busy and 64 MB held over [0, 1.5) s
//   ComputerTimeline tl = t.timeline(0, 2.0);  // its means per bucket up to the run's end at 2 s
#pragma once

#include <cstddef>
#include <vector>

#include "hetperf/model/prediction.hpp"

namespace hetperf::sim::detail {

class Timelines {
 public:
  Timelines(std::size_t computers, std::size_t points);

  bool enabled() const { return points_ > 0; }

  // Adds computer c's utilisation (busy cores over cores) and memory held over [t0, t1).
  void record(std::size_t c, double t0, double t1, double utilisation, double memory_mb);

  // Computer c's mean utilisation and memory per bucket, up to end_s (no points when disabled).
  ComputerTimeline timeline(std::size_t c, double end_s) const;

 private:
  void coarsen();

  std::size_t points_;
  double interval_;
  std::vector<std::vector<double>> busy_, memory_;  // per computer, per bucket: integrals over time
};

}  // namespace hetperf::sim::detail
