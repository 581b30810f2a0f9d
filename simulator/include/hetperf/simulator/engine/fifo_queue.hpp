// A first-in first-out queue in one vector: served from a moving head, compacted once the served part
// is the larger half, so push and pop are amortised O(1). Unlike std::deque (which allocates a block
// when it is constructed) an empty queue allocates nothing; a simulation holds one per processor and
// per disk, most of them empty.
#pragma once

#include <cstddef>
#include <vector>

namespace hetperf::sim {

template <class T>
class FifoQueue {
 public:
  using iterator = typename std::vector<T>::iterator;

  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  void push_back(T item) { items_.push_back(std::move(item)); }
  T& front() { return items_[head_]; }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }
  // Removes one queued item (a departure before its turn), O(n).
  void erase(iterator it) { items_.erase(it); }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace hetperf::sim
