// Tests of the discrete-event engine (simulator/include/hetperf/simulator/engine/engine.hpp).
#include <catch2/catch.hpp>

#include <vector>

#include "hetperf/simulator/engine/engine.hpp"

using namespace hetperf::sim;

namespace {
struct Recorder final : Handler {
  Engine* engine = nullptr;
  std::vector<std::uint64_t> keys;
  std::vector<double> times;
  void fire(std::uint64_t key) override {
    keys.push_back(key);
    times.push_back(engine->now().s());
  }
};
}  // namespace

TEST_CASE("simulator: the engine runs events by time, then in scheduling order for equal times") {
  Engine e;
  Recorder r;
  r.engine = &e;
  e.at(Time(2.0), r, 1);
  e.at(Time(1.0), r, 2);
  e.at(Time(2.0), r, 3);
  e.at(Time(1.0), r, 4);
  e.at(Time(0.5), r, 5);
  e.run();
  CHECK(r.keys == std::vector<std::uint64_t>{5, 2, 4, 1, 3});
  CHECK(r.times == std::vector<double>{0.5, 1, 1, 2, 2});
  CHECK(e.events_fired() == 5);
  CHECK(e.events_pending() == 0);
}

TEST_CASE("simulator: a moved event runs at its new time after the events already there, a cancelled one never") {
  Engine e;
  Recorder r;
  r.engine = &e;
  EventId a = e.at(Time(1.0), r, 1);
  e.at(Time(3.0), r, 2);
  EventId c = e.at(Time(2.0), r, 3);
  e.move(a, Time(3.0));  // after key 2, scheduled earlier for t = 3
  e.cancel(c);
  CHECK_FALSE(c);
  CHECK(e.events_pending() == 2);
  e.run();
  CHECK(r.keys == std::vector<std::uint64_t>{2, 1});
  CHECK_FALSE(e.pending(a));  // it fired: its id is stale
}

TEST_CASE("simulator: an event rescheduled many times leaves one entry in the queue, not one per move") {
  Engine e;
  Recorder r;
  r.engine = &e;
  EventId id;
  for (int k = 0; k < 10000; ++k) e.set(id, Time(1.0 + k * 1e-3), r, 7);
  CHECK(e.events_pending() == 1);
  e.run();
  CHECK(r.times == std::vector<double>{1.0 + 9999 * 1e-3});
}

TEST_CASE("simulator: the engine drains many events with times never decreasing and reuses its slots") {
  Engine e;
  struct Chain final : Handler {
    Engine* engine;
    int left = 3000;
    double last = -1;
    bool ordered = true;
    void fire(std::uint64_t key) override {
      ordered &= engine->now().s() >= last;
      last = engine->now().s();
      if (--left > 0) engine->after(Duration(static_cast<double>((key * 7919u) % 101) * 1e-3), *this, key + 1);
    }
  } chain;
  chain.engine = &e;
  for (int k = 0; k < 10; ++k) e.at(Time(0), chain, static_cast<std::uint64_t>(k));
  e.run();
  CHECK(chain.ordered);
  CHECK(e.events_fired() >= 3000);
}
