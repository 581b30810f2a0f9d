// A binary min-heap of ids with keys, where every id knows its position, so that an entry can be
// moved or removed in O(log n) instead of being left behind as a stale entry. The engine's event
// queue and the shared resources' completion orders are all one of these.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {

inline constexpr std::uint32_t kNotInHeap = UINT32_MAX;

// `Key` is ordered by operator<; equal keys must not occur (callers add a sequence number), so the
// order of removal is fully determined. Positions live in `positions` (indexed by id, kNotInHeap
// when absent), owned by the caller so that several heaps can share one table for ids that are in
// at most one of them at a time.
template <class Key>
class IndexedHeap {
 public:
  explicit IndexedHeap(std::vector<std::uint32_t>* positions) : pos_(positions) {}

  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  std::uint32_t top() const { return items_.front().second; }
  const Key& top_key() const { return items_.front().first; }
  bool contains(std::uint32_t id) const { return id < pos_->size() && (*pos_)[id] != kNotInHeap; }
  const Key& key(std::uint32_t id) const { return items_[(*pos_)[id]].first; }
  void reserve(std::size_t n) { items_.reserve(n); }

  void push(std::uint32_t id, Key key) {
    if (id >= pos_->size()) pos_->resize(static_cast<std::size_t>(id) + 1, kNotInHeap);
    HETPERF_CHECK((*pos_)[id] == kNotInHeap, "id pushed twice onto a heap");
    items_.emplace_back(std::move(key), id);
    (*pos_)[id] = static_cast<std::uint32_t>(items_.size() - 1);
    up(items_.size() - 1);
  }
  std::uint32_t pop() {
    std::uint32_t id = items_.front().second;
    erase(id);
    return id;
  }
  void erase(std::uint32_t id) {
    std::size_t i = (*pos_)[id];
    (*pos_)[id] = kNotInHeap;
    if (i + 1 != items_.size()) {
      items_[i] = std::move(items_.back());
      items_.pop_back();
      (*pos_)[items_[i].second] = static_cast<std::uint32_t>(i);
      if (!up(i)) down(i);
    } else {
      items_.pop_back();
    }
  }
  void update(std::uint32_t id, Key key) {
    std::size_t i = (*pos_)[id];
    items_[i].first = std::move(key);
    if (!up(i)) down(i);
  }
  // Visits every (id, key) in heap order (not sorted).
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [k, id] : items_) f(id, k);
  }

 private:
  void place(std::size_t i, std::pair<Key, std::uint32_t> item) {
    (*pos_)[item.second] = static_cast<std::uint32_t>(i);
    items_[i] = std::move(item);
  }
  bool up(std::size_t i) {
    std::size_t start = i;
    auto item = std::move(items_[i]);
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!(item.first < items_[parent].first)) break;
      place(i, std::move(items_[parent]));
      i = parent;
    }
    place(i, std::move(item));
    return i != start;
  }
  void down(std::size_t i) {
    const std::size_t n = items_.size();
    auto item = std::move(items_[i]);
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && items_[child + 1].first < items_[child].first) ++child;
      if (!(items_[child].first < item.first)) break;
      place(i, std::move(items_[child]));
      i = child;
    }
    place(i, std::move(item));
  }

  std::vector<std::pair<Key, std::uint32_t>> items_;
  std::vector<std::uint32_t>* pos_;
};

}  // namespace hetperf::sim
