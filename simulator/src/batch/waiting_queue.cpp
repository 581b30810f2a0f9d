// The waiting queue's slots and the segment tree of their bounds (waiting_queue.hpp).
#include "hetperf/simulator/batch/waiting_queue.hpp"

#include <algorithm>

#include "hetperf/model/error.hpp"

namespace hetperf::sim::batch {
namespace {

QueueBound bound_of(const QueuedJob& job) {
  QueueBound b;
  for (const StartOption& o : *job.options) {
    b.processors = std::min(b.processors, o.processors);
    b.estimate_s = std::min(b.estimate_s, o.estimate_s);
  }
  return b;
}

QueueBound merge(const QueueBound& a, const QueueBound& b) {
  return {std::min(a.processors, b.processors), std::min(a.estimate_s, b.estimate_s)};
}

}  // namespace

std::size_t WaitingQueue::push(const QueuedJob& job) {
  const std::size_t slot = slots_.size();
  slots_.push_back(job);
  live_.push_back(1);
  if (slots_.size() > leaves_)
    rebuild();
  else
    set_leaf(slot, bound_of(job));
  if (live_count_++ == 0) head_ = slot;
  return slot;
}

void WaitingQueue::erase(std::size_t slot) {
  HETPERF_CHECK(live(slot), "a job left the queue twice");
  live_[slot] = 0;
  --live_count_;
  set_leaf(slot, QueueBound{});
  if (slot == head_) head_ = next(slot);
}

std::size_t WaitingQueue::next(std::size_t slot) const {
  return find(
      slot + 1, [](const QueueBound& b) { return b.processors != QueueBound{}.processors; },
      [](std::size_t) { return true; });
}

void WaitingQueue::set_leaf(std::size_t slot, QueueBound bound) {
  std::size_t node = leaves_ + slot;
  tree_[node] = bound;
  for (node /= 2; node >= 1; node /= 2) tree_[node] = merge(tree_[2 * node], tree_[2 * node + 1]);
}

void WaitingQueue::rebuild() {
  leaves_ = std::max<std::size_t>(leaves_, 64);
  while (leaves_ < slots_.size()) leaves_ *= 2;
  tree_.assign(2 * leaves_, QueueBound{});
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    if (live_[s]) tree_[leaves_ + s] = bound_of(slots_[s]);
  }
  for (std::size_t node = leaves_ - 1; node >= 1; --node) tree_[node] = merge(tree_[2 * node], tree_[2 * node + 1]);
}

void WaitingQueue::compact() {
  const std::size_t dead = slots_.size() - live_count_;
  if (dead < 64 || dead < live_count_) return;
  std::size_t out = 0;
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    if (live_[s]) slots_[out++] = slots_[s];
  }
  slots_.resize(out);
  live_.assign(out, 1);
  head_ = 0;
  ++generation_;
  rebuild();
}

}  // namespace hetperf::sim::batch
