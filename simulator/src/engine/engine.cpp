// The event loop (see engine.hpp).
#include "hetperf/simulator/engine/engine.hpp"

#include <cmath>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {

EventId Engine::at(Time t, Handler& handler, std::uint64_t key) {
  HETPERF_CHECK(t >= now_ && !std::isnan(t.s()), "event scheduled in the past or at NaN");
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  s.handler = &handler;
  s.key = key;
  heap_.push(slot, {t.s(), sequence_++});
  return {slot, s.generation};
}

void Engine::check(EventId id) const {
  HETPERF_CHECK(pending(id), "event id is not pending (it fired or was cancelled)");
}

void Engine::move(EventId id, Time t) {
  check(id);
  HETPERF_CHECK(t >= now_ && !std::isnan(t.s()), "event moved into the past or to NaN");
  heap_.update(id.slot, {t.s(), sequence_++});
}

void Engine::set(EventId& id, Time t, Handler& handler, std::uint64_t key) {
  if (pending(id)) {
    move(id, t);
  } else {
    id = at(t, handler, key);
  }
}

void Engine::cancel(EventId& id) {
  if (!pending(id)) {
    id = {};
    return;
  }
  heap_.erase(id.slot);
  ++slots_[id.slot].generation;
  free_slots_.push_back(id.slot);
  id = {};
}

void Engine::run() {
  while (!heap_.empty()) {
    const double t = heap_.top_key().first;
    const std::uint32_t slot = heap_.pop();
    Slot& s = slots_[slot];
    Handler* handler = s.handler;
    const std::uint64_t key = s.key;
    ++s.generation;
    free_slots_.push_back(slot);
    now_ = Time(t);
    ++fired_;
    handler->fire(key);
  }
}

}  // namespace hetperf::sim
