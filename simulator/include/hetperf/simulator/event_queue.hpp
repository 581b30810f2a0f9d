// The discrete-event core: events ordered by (time, insertion sequence), so events at the same time
// run in the order they were scheduled and a run is deterministic. No wall clock anywhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hetperf::sim {

using SimTime = double;  // seconds of simulated time

// A plain event record; the simulation dispatches on `kind`. `a` and `b` are kind-specific
// (an entity index and a validity stamp, for example). Kept small: the queue holds millions.
struct Event {
  SimTime time = 0;
  std::uint64_t sequence = 0;
  std::uint32_t kind = 0;
  std::uint32_t a = 0;
  std::uint64_t b = 0;
};

// A binary min-heap on (time, sequence) over a vector the caller may reserve, so a run in steady
// state schedules and pops without allocating.
class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  void schedule(SimTime time, std::uint32_t kind, std::uint32_t a, std::uint64_t b = 0) {
    heap_.push_back(Event{time, next_sequence_++, kind, a, b});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // The earliest event (smallest time, then smallest sequence); the queue must not be empty.
  const Event& top() const { return heap_.front(); }
  // Removes and returns the earliest event.
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  std::uint64_t scheduled() const { return next_sequence_; }

 private:
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.sequence > y.sequence;
    }
  };
  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace hetperf::sim
