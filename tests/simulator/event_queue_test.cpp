// Tests of the discrete-event core (simulator/include/hetperf/simulator/event_queue.hpp).
#include <catch2/catch.hpp>

#include "hetperf/simulator/event_queue.hpp"

using hetperf::sim::EventQueue;

TEST_CASE("simulator: event queue pops events by time, then in scheduling order for equal times") {
  EventQueue q;
  q.schedule(2.0, 0, 1);
  q.schedule(1.0, 0, 2);
  q.schedule(2.0, 0, 3);
  q.schedule(1.0, 0, 4);
  q.schedule(0.5, 0, 5);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().a);
  CHECK(order == std::vector<std::uint32_t>{5, 2, 4, 1, 3});
  CHECK(q.scheduled() == 5);
}

TEST_CASE("simulator: event queue drains many events with times never decreasing and ties in sequence order") {
  EventQueue q;
  for (std::uint32_t k = 0; k < 3000; ++k) q.schedule(static_cast<double>((k * 7919u) % 101), 0, k);
  double t = -1;
  std::uint64_t s = 0;
  std::size_t popped = 0;
  while (!q.empty()) {
    auto e = q.pop();
    if (e.time == t) REQUIRE(e.sequence > s);
    REQUIRE(e.time >= t);
    t = e.time;
    s = e.sequence;
    ++popped;
  }
  CHECK(popped == 3000);
}
