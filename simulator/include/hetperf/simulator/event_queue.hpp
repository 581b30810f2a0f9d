// The discrete-event core: events ordered by (time, insertion sequence), so events at the same time
// run in the order they were scheduled and a run is deterministic. No wall clock anywhere.
#pragma once

#include <cstdint>
#include <queue>
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

class EventQueue {
 public:
  void schedule(SimTime time, std::uint32_t kind, std::uint32_t a, std::uint64_t b = 0) {
    heap_.push(Event{time, next_sequence_++, kind, a, b});
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // Removes and returns the earliest event (smallest time, then smallest sequence).
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  std::uint64_t scheduled() const { return next_sequence_; }

 private:
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.sequence > y.sequence;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace hetperf::sim
