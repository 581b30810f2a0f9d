// Free processors over future time: a step function built from the free count now and the running
// jobs' planned releases, on which reservations are placed (conservative backfilling's reservation
// of every waiting job; Mu'alem and Feitelson 2001). The steps are a treap keyed by time with lazy
// range additions and each subtree's least and greatest free count, so that a reservation, the
// earliest start of a job and the least free count over an interval each cost O(log n) in the
// number of steps (the earliest start: per interval of the profile too small for the job that it
// has to step over).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace hetperf::sim::batch {

class AvailabilityProfile {
 public:
  AvailabilityProfile() = default;
  AvailabilityProfile(double now_s, std::int64_t free, const std::multimap<double, std::int64_t>& releases) {
    reset(now_s, free, releases);
  }
  // `free` from now on, plus each release from its time; one at or before now (a job running past its
  // estimate) from the next representable time after now.
  void reset(double now_s, std::int64_t free, const std::multimap<double, std::int64_t>& releases);
  // Earliest time >= the profile's start at which `processors` stay free for `duration_s`: always
  // at the start of a step.
  double earliest_start(std::int64_t processors, double duration_s) const;
  // Takes `processors` during [start_s, start_s + duration_s); nothing when the duration is not > 0.
  void reserve(double start_s, double duration_s, std::int64_t processors);
  std::int64_t free_at(double t) const;
  // The least free count over the steps that begin in [from_s, to_s) (none: the largest int64).
  std::int64_t min_free(double from_s, double to_s) const;
  double start_s() const;
  // The time of the second step (+infinity when there is one step).
  double second_step_s() const;
  // Moves the profile's start to `now_s`, which must not pass the second step.
  void advance(double now_s);

 private:
  struct Node {
    double time_s = 0;
    std::int64_t free = 0;   // from time_s to the next step's time
    std::int64_t add = 0;    // pending for the children
    std::int64_t min = 0;    // over the subtree, this node's pending additions included
    std::int64_t max = 0;
    std::uint32_t priority = 0;
    int left = -1;
    int right = -1;
  };
  int make(double time_s, std::int64_t free);
  void apply(int n, std::int64_t delta);
  void push(int n);
  void pull(int n);
  // Splits n into keys < time_s and keys >= time_s.
  void split(int n, double time_s, int& lo, int& hi);
  int merge(int a, int b);
  void insert_step(double time_s);
  // The first step beginning at or after from_s (after: strictly) whose free count is >= p
  // (at_least) or < p (!at_least); -1 when none.
  int first_step(double from_s, bool strictly_after, std::int64_t p, bool at_least) const;
  int first_step_below(int n, std::int64_t acc, double from_s, bool strictly_after, std::int64_t p,
                       bool at_least) const;
  std::int64_t range_min(int n, std::int64_t acc, double from_s, double to_s, bool bounded_from,
                         bool bounded_to) const;

  std::vector<Node> nodes_;
  std::vector<std::pair<double, std::int64_t>> steps_;  // reset()'s scratch
  int root_ = -1;
  std::uint64_t seed_ = 0x9e3779b97f4a7c15ULL;
};

}  // namespace hetperf::sim::batch
