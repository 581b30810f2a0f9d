// The jobs waiting in a batch queue, in submit order, with an index that finds the next job that may
// fit without looking at those that cannot. Each job keeps its slot (its position in submit order)
// from its arrival until it starts; the engine compacts the slots between passes once most are
// empty, and generation() then changes. A segment tree over the slots holds, below each node, the
// smallest processor count and the smallest estimate of the live jobs there: a search prunes every
// subtree whose bounds already rule it out, so a pass costs O(log n) per job it starts (or rejects on
// its own figures), not a scan of the whole queue.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace hetperf::sim::batch {

// A count a queued job may start with and the run time the scheduler believes for it (the
// requested time when given: "requested times as estimates").
struct StartOption {
  std::int64_t processors = 0;
  double estimate_s = 0;
};

struct QueuedJob {
  std::size_t job = 0;  // index of the job in the simulation
  double submit_s = 0;
  const std::vector<StartOption>* options = nullptr;  // ascending processors, at least one
};

// The smallest processor count and the smallest estimate over some jobs' options: a lower bound
// for each of their options (none live: the largest values).
struct QueueBound {
  std::int64_t processors = std::numeric_limits<std::int64_t>::max();
  double estimate_s = std::numeric_limits<double>::infinity();
};

class WaitingQueue {
 public:
  // Appends a job (at the end of submit order) and returns its slot.
  std::size_t push(const QueuedJob& job);
  // Removes the job in a live slot.
  void erase(std::size_t slot);
  const QueuedJob& operator[](std::size_t slot) const { return slots_[slot]; }
  bool live(std::size_t slot) const { return slot < slots_.size() && live_[slot]; }
  std::size_t size() const { return live_count_; }
  bool empty() const { return live_count_ == 0; }
  // One past the last slot: what first(), next() and find() return when there is no such job.
  std::size_t end() const { return slots_.size(); }
  std::size_t first() const { return head_; }
  std::size_t next(std::size_t slot) const;
  // The first live slot >= from such that `may(bound)` holds for the bound of every subtree holding
  // it, itself included, and `fits(slot)` holds. `may` must hold for a bound whenever `fits` holds
  // for some job below it (a necessary condition): then no fitting job is skipped.
  template <typename May, typename Fits>
  std::size_t find(std::size_t from, May may, Fits fits) const {
    if (from >= slots_.size()) return end();
    std::size_t found = descend(1, 0, leaves_, from, may, fits);
    return found == kNone ? end() : found;
  }
  // Changes on every compaction, which renumbers the slots.
  std::uint64_t generation() const { return generation_; }
  // Renumbers the live jobs to slots 0..size()-1 when at least half of the slots (and more than a
  // few) are empty; amortized O(1) per job. Never during a pass: slots are its decisions' names.
  void compact();

 private:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  template <typename May, typename Fits>
  std::size_t descend(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from, May& may, Fits& fits) const {
    if (hi <= from || lo >= slots_.size() || !may(tree_[node])) return kNone;
    if (hi - lo == 1) return live_[lo] && fits(lo) ? lo : kNone;
    std::size_t mid = lo + (hi - lo) / 2;
    std::size_t left = descend(2 * node, lo, mid, from, may, fits);
    return left != kNone ? left : descend(2 * node + 1, mid, hi, from, may, fits);
  }
  void set_leaf(std::size_t slot, QueueBound bound);
  void rebuild();

  std::vector<QueuedJob> slots_;
  std::vector<char> live_;
  std::vector<QueueBound> tree_;  // 1-based heap layout over leaves_ leaves
  std::size_t leaves_ = 0;
  std::size_t live_count_ = 0;
  std::size_t head_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace hetperf::sim::batch
