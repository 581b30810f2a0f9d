// The discrete-event engine under every model (UniMPP processes, the applications' ranks, batch
// jobs): one event loop, events ordered by (time, scheduling sequence) so that events at the same
// time run in the order they were scheduled and a run is deterministic. No wall clock anywhere.
//
// An event is a pending call `handler.fire(key)` at a time. It can be moved to another time or
// cancelled through its EventId, in O(log n): a resource whose next completion changes moves its one
// event rather than leaving a stale one behind, so the queue holds one entry per live wait.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "hetperf/simulator/engine/indexed_heap.hpp"
#include "hetperf/simulator/engine/time.hpp"

namespace hetperf::sim {

// What an event calls. Models and resources implement it; `key` is theirs to interpret.
class Handler {
 public:
  virtual void fire(std::uint64_t key) = 0;

 protected:
  ~Handler() = default;
};

// A scheduled event; empty (false) when none. Stale ids (of an event that fired or was cancelled)
// are recognised by their generation.
struct EventId {
  std::uint32_t slot = kNotInHeap;
  std::uint32_t generation = 0;
  explicit operator bool() const { return slot != kNotInHeap; }
};

class Engine {
 public:
  Engine() : heap_(&positions_) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Time now() const { return now_; }

  // Schedules handler.fire(key) at `t` (not before now).
  EventId at(Time t, Handler& handler, std::uint64_t key = 0);
  EventId after(Duration d, Handler& handler, std::uint64_t key = 0) { return at(now_ + d, handler, key); }
  // Moves a pending event to `t`; it then runs after the events already scheduled for `t`, as if it
  // had been scheduled now.
  void move(EventId id, Time t);
  // Schedules, or moves when `id` is pending; `id` is updated.
  void set(EventId& id, Time t, Handler& handler, std::uint64_t key = 0);
  // Cancels a pending event (a no-op for an empty id); `id` becomes empty.
  void cancel(EventId& id);
  bool pending(EventId id) const {
    return id && id.slot < slots_.size() && slots_[id.slot].generation == id.generation && heap_.contains(id.slot);
  }

  // The one event loop: runs events until none is left.
  void run();

  std::uint64_t events_fired() const { return fired_; }
  std::size_t events_pending() const { return heap_.size(); }
  void reserve(std::size_t n) {
    slots_.reserve(n);
    positions_.reserve(n);
    heap_.reserve(n);
  }

 private:
  struct Slot {
    Handler* handler = nullptr;
    std::uint64_t key = 0;
    std::uint32_t generation = 0;
  };
  using Key = std::pair<double, std::uint64_t>;  // (time, sequence)

  void check(EventId id) const;

  Time now_;
  std::uint64_t sequence_ = 0, fired_ = 0;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> positions_;
  IndexedHeap<Key> heap_;
};

}  // namespace hetperf::sim
