// The availability profile's steps (availability_profile.hpp).
#include "hetperf/simulator/batch/availability_profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hetperf/model/error.hpp"

namespace hetperf::sim::batch {

void AvailabilityProfile::reset(double now_s, std::int64_t free, const std::multimap<double, std::int64_t>& releases) {
  steps_.clear();
  steps_.emplace_back(now_s, free);
  // A job still running at or past its estimated end frees its processors "any moment": just after
  // now, not now, where they are not free (counting them now started jobs on processors still held).
  const double overdue_s = std::nextafter(now_s, std::numeric_limits<double>::infinity());
  for (const auto& [t, p] : releases) {
    const double at = t <= now_s ? overdue_s : t;
    if (steps_.back().first == at)
      steps_.back().second += p;
    else
      steps_.emplace_back(at, steps_.back().second + p);
  }
}

std::int64_t AvailabilityProfile::free_at(double t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t,
                             [](double x, const std::pair<double, std::int64_t>& s) { return x < s.first; });
  return it == steps_.begin() ? 0 : std::prev(it)->second;
}

double AvailabilityProfile::earliest_start(std::int64_t processors, double duration_s) const {
  // A start is only ever at a step boundary; from candidate k, scan the steps the job would overlap.
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    if (steps_[k].second < processors) continue;
    double end = steps_[k].first + duration_s;
    std::size_t m = k + 1;
    while (m < steps_.size() && steps_[m].first < end && steps_[m].second >= processors) ++m;
    if (m == steps_.size() || steps_[m].first >= end) return steps_[k].first;
    // Step m is too small, and every start in k..m-1 would overlap it: the next candidate is m + 1
    // (the loop's ++k lands on m, which the first test skips).
    k = m - 1;
  }
  HETPERF_CHECK(false, "no start found for " + std::to_string(processors) + " processors");
  return 0;
}

void AvailabilityProfile::reserve(double start_s, double duration_s, std::int64_t processors) {
  auto split = [&](double t) {
    auto it = std::lower_bound(steps_.begin(), steps_.end(), t,
                               [](const std::pair<double, std::int64_t>& s, double x) { return s.first < x; });
    if (it != steps_.end() && it->first == t) return static_cast<std::size_t>(it - steps_.begin());
    HETPERF_CHECK(it != steps_.begin(), "reservation before the profile starts");
    std::int64_t free = std::prev(it)->second;
    auto inserted = steps_.insert(it, {t, free});  // may reallocate: take begin() afterwards
    return static_cast<std::size_t>(inserted - steps_.begin());
  };
  if (duration_s <= 0) return;
  std::size_t a = split(start_s);
  std::size_t b = split(start_s + duration_s);
  for (std::size_t i = a; i < b; ++i) {
    steps_[i].second -= processors;
    HETPERF_CHECK(steps_[i].second >= 0, "reservation over capacity");
  }
}

void AvailabilityProfile::least_free_ahead(std::vector<std::pair<double, std::int64_t>>& out) const {
  out.clear();
  std::int64_t least = std::numeric_limits<std::int64_t>::max();
  for (const auto& [t, free] : steps_) {
    least = std::min(least, free);
    out.emplace_back(t, least);
  }
}

double AvailabilityProfile::second_step_s() const {
  return steps_.size() > 1 ? steps_[1].first : std::numeric_limits<double>::infinity();
}

void AvailabilityProfile::advance(double now_s) {
  HETPERF_CHECK(second_step_s() > now_s, "advancing the profile past a step");
  steps_.front().first = now_s;
}

}  // namespace hetperf::sim::batch
