// The availability profile's treap (availability_profile.hpp). Each node is one step: from its time
// to the next node's time, `free` processors are idle. A node's `add` is pending for its children
// only, so a node's own figures are exact once its ancestors' pending additions are counted; the
// const queries carry that sum down instead of pushing it.
#include "hetperf/simulator/batch/availability_profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hetperf/model/error.hpp"

namespace hetperf::sim::batch {
namespace {

constexpr std::int64_t kNoStep = std::numeric_limits<std::int64_t>::max();

}  // namespace

int AvailabilityProfile::make(double time_s, std::int64_t free) {
  seed_ = seed_ * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG: priorities only
  Node n;
  n.time_s = time_s;
  n.free = n.min = n.max = free;
  n.priority = static_cast<std::uint32_t>(seed_ >> 32);
  nodes_.push_back(n);
  return static_cast<int>(nodes_.size() - 1);
}

void AvailabilityProfile::apply(int n, std::int64_t delta) {
  if (n < 0) return;
  Node& x = nodes_[static_cast<std::size_t>(n)];
  x.free += delta;
  x.add += delta;
  x.min += delta;
  x.max += delta;
}

void AvailabilityProfile::push(int n) {
  Node& x = nodes_[static_cast<std::size_t>(n)];
  if (x.add == 0) return;
  apply(x.left, x.add);
  apply(x.right, x.add);
  x.add = 0;
}

void AvailabilityProfile::pull(int n) {
  Node& x = nodes_[static_cast<std::size_t>(n)];
  x.min = x.max = x.free;
  for (int c : {x.left, x.right}) {
    if (c < 0) continue;
    x.min = std::min(x.min, nodes_[static_cast<std::size_t>(c)].min + x.add);
    x.max = std::max(x.max, nodes_[static_cast<std::size_t>(c)].max + x.add);
  }
}

void AvailabilityProfile::split(int n, double time_s, int& lo, int& hi) {
  if (n < 0) {
    lo = hi = -1;
    return;
  }
  push(n);
  Node& x = nodes_[static_cast<std::size_t>(n)];
  if (x.time_s < time_s) {
    split(x.right, time_s, nodes_[static_cast<std::size_t>(n)].right, hi);
    lo = n;
  } else {
    split(x.left, time_s, lo, nodes_[static_cast<std::size_t>(n)].left);
    hi = n;
  }
  pull(n);
}

int AvailabilityProfile::merge(int a, int b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (nodes_[static_cast<std::size_t>(a)].priority > nodes_[static_cast<std::size_t>(b)].priority) {
    push(a);
    int r = merge(nodes_[static_cast<std::size_t>(a)].right, b);
    nodes_[static_cast<std::size_t>(a)].right = r;
    pull(a);
    return a;
  }
  push(b);
  int l = merge(a, nodes_[static_cast<std::size_t>(b)].left);
  nodes_[static_cast<std::size_t>(b)].left = l;
  pull(b);
  return b;
}

void AvailabilityProfile::reset(double now_s, std::int64_t free,
                                const std::multimap<double, std::int64_t>& releases) {
  steps_.clear();
  steps_.emplace_back(now_s, free);
  // A job still running at or past its estimated end frees its processors "any moment": just after
  // now, not now, where they are not free (counting them now started jobs on processors still held).
  const double overdue_s = std::nextafter(now_s, std::numeric_limits<double>::infinity());
  for (const auto& [t, p] : releases) {
    const double at = t <= now_s ? overdue_s : t;
    if (steps_.back().first == at) steps_.back().second += p;
    else steps_.emplace_back(at, steps_.back().second + p);
  }
  nodes_.clear();
  seed_ = 0x9e3779b97f4a7c15ULL;
  root_ = -1;
  for (const auto& [t, f] : steps_) root_ = merge(root_, make(t, f));
}

std::int64_t AvailabilityProfile::free_at(double t) const {
  std::int64_t acc = 0, value = 0;
  for (int n = root_; n >= 0;) {
    const Node& x = nodes_[static_cast<std::size_t>(n)];
    if (x.time_s <= t) {
      value = x.free + acc;
      n = x.right;
    } else {
      n = x.left;
    }
    acc += x.add;
  }
  return value;
}

int AvailabilityProfile::first_step(double from_s, bool strictly_after, std::int64_t p, bool at_least) const {
  return first_step_below(root_, 0, from_s, strictly_after, p, at_least);
}

int AvailabilityProfile::first_step_below(int n, std::int64_t acc, double from_s, bool strictly_after,
                                          std::int64_t p, bool at_least) const {
  if (n < 0) return -1;
  const Node& x = nodes_[static_cast<std::size_t>(n)];
  if (at_least ? x.max + acc < p : x.min + acc >= p) return -1;
  const std::int64_t below = acc + x.add;
  if (strictly_after ? x.time_s > from_s : x.time_s >= from_s) {
    int l = first_step_below(x.left, below, from_s, strictly_after, p, at_least);
    if (l >= 0) return l;
    if (at_least ? x.free + acc >= p : x.free + acc < p) return n;
  }
  return first_step_below(x.right, below, from_s, strictly_after, p, at_least);
}

double AvailabilityProfile::earliest_start(std::int64_t processors, double duration_s) const {
  // The same walk as over a list of steps: a candidate step with enough processors, then the first
  // step too small before the job would end; past it, the next step with enough is the candidate.
  int k = first_step(-std::numeric_limits<double>::infinity(), false, processors, true);
  while (k >= 0) {
    const double t = nodes_[static_cast<std::size_t>(k)].time_s;
    const int m = first_step(t, true, processors, false);
    if (m < 0 || nodes_[static_cast<std::size_t>(m)].time_s >= t + duration_s) return t;
    k = first_step(nodes_[static_cast<std::size_t>(m)].time_s, true, processors, true);
  }
  HETPERF_CHECK(false, "no start found for " + std::to_string(processors) + " processors");
  return 0;
}

void AvailabilityProfile::insert_step(double time_s) {
  // The step holding time_s: the node with the largest time <= time_s, and its exact free count.
  std::int64_t acc = 0, free = 0;
  int holder = -1;
  for (int n = root_; n >= 0;) {
    const Node& x = nodes_[static_cast<std::size_t>(n)];
    if (x.time_s <= time_s) {
      holder = n;
      free = x.free + acc;
      n = x.right;
    } else {
      n = x.left;
    }
    acc += x.add;
  }
  HETPERF_CHECK(holder >= 0, "reservation before the profile starts");
  if (nodes_[static_cast<std::size_t>(holder)].time_s == time_s) return;
  const int step = make(time_s, free);
  int lo = -1, hi = -1;
  split(root_, time_s, lo, hi);
  root_ = merge(merge(lo, step), hi);
}

void AvailabilityProfile::reserve(double start_s, double duration_s, std::int64_t processors) {
  if (duration_s <= 0) return;
  const double end_s = start_s + duration_s;
  insert_step(start_s);
  insert_step(end_s);
  int a = -1, bc = -1, b = -1, c = -1;
  split(root_, start_s, a, bc);
  split(bc, end_s, b, c);
  apply(b, -processors);
  HETPERF_CHECK(b < 0 || nodes_[static_cast<std::size_t>(b)].min >= 0, "reservation over capacity");
  root_ = merge(merge(a, b), c);
}

std::int64_t AvailabilityProfile::min_free(double from_s, double to_s) const {
  return range_min(root_, 0, from_s, to_s, true, true);
}

std::int64_t AvailabilityProfile::range_min(int n, std::int64_t acc, double from_s, double to_s, bool bounded_from,
                                            bool bounded_to) const {
  if (n < 0) return kNoStep;
  const Node& x = nodes_[static_cast<std::size_t>(n)];
  if (!bounded_from && !bounded_to) return x.min + acc;
  const std::int64_t below = acc + x.add;
  if (bounded_from && x.time_s < from_s) return range_min(x.right, below, from_s, to_s, true, bounded_to);
  if (bounded_to && x.time_s >= to_s) return range_min(x.left, below, from_s, to_s, bounded_from, true);
  return std::min({x.free + acc, range_min(x.left, below, from_s, to_s, bounded_from, false),
                   range_min(x.right, below, from_s, to_s, false, bounded_to)});
}

double AvailabilityProfile::start_s() const {
  int n = root_;
  while (nodes_[static_cast<std::size_t>(n)].left >= 0) n = nodes_[static_cast<std::size_t>(n)].left;
  return nodes_[static_cast<std::size_t>(n)].time_s;
}

double AvailabilityProfile::second_step_s() const {
  int n = first_step(start_s(), true, std::numeric_limits<std::int64_t>::min(), true);
  return n < 0 ? std::numeric_limits<double>::infinity() : nodes_[static_cast<std::size_t>(n)].time_s;
}

void AvailabilityProfile::advance(double now_s) {
  HETPERF_CHECK(second_step_s() > now_s, "advancing the profile past a step");
  int n = root_;
  while (nodes_[static_cast<std::size_t>(n)].left >= 0) n = nodes_[static_cast<std::size_t>(n)].left;
  nodes_[static_cast<std::size_t>(n)].time_s = now_s;
}

}  // namespace hetperf::sim::batch
