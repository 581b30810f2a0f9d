// Tests for model/src/unimpp.cpp: each UniMPP equation (UniMPP paper eq. 2-9) on hand-computed cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "hetperf/model/unimpp.hpp"

using namespace hetperf::unimpp;

TEST_CASE("model: unimpp: eq. 2 gives the ideal execution time mp / pc") {
  CHECK(te(2291.72, 1145.86) == Approx(2.0));
  CHECK(te(0, 1000) == 0);
}

TEST_CASE("model: unimpp: eq. 3 stretches the execution time by 1 + alpha") {
  CHECK(tem(10.0, 0.25) == Approx(12.5));
  CHECK(tem(10.0, 0) == Approx(10.0));
}

TEST_CASE("model: unimpp: slowdown follows seed Table 2: linear in main memory, exponential beyond") {
  SlowdownFunction f;
  f.main_memory_mb = 1024;
  f.main = {0.0012, -0.0065};
  f.virtual_memory = ExponentialSlowdown{0.0938, 0.0039};
  CHECK(f.alpha(500) == Approx(0.0012 * 500 - 0.0065));
  CHECK(f.alpha(1024) == Approx(0.0012 * 1024 - 0.0065));
  CHECK(f.alpha(1500) == Approx(0.0938 * std::exp(0.0039 * 1500)));
  CHECK(f.alpha(1) == 0);  // 0.0012 - 0.0065 < 0 is clamped: memory never speeds a process up
}

TEST_CASE("model: unimpp: without a measured swap region the linear part is extended beyond the knee") {
  SlowdownFunction f;
  f.main_memory_mb = 256;
  f.main = {0.0018, -0.0007};
  CHECK(f.alpha(400) == Approx(0.0018 * 400 - 0.0007));
}

TEST_CASE("model: unimpp: eq. 4 and 5 add transfer times and waiting times of each access") {
  std::vector<DiskAccess> reads = {{76.28e6, 0.0}, {38.14e6, 0.25}};
  CHECK(disk_delay(reads, 76.28e6) == Approx(1.0 + 0.5 + 0.25));
  CHECK(disk_delay({}, 1e6) == 0);
}

TEST_CASE("model: unimpp: eq. 6 and 7 give message costs from overhead, latency and waiting") {
  CHECK(theta(10e-6, 20e-6) == Approx(40e-6));  // θ = 2o + l, seed Table 1: 0.000040 s
  CHECK(message_time(40e-6, 1e6, 1e8) == Approx(40e-6 + 0.01));
  std::vector<MessageCost> msgs = {{40e-6, 0}, {40e-6, 1e-3}};
  CHECK(network_delay(msgs) == Approx(80e-6 + 1e-3));
}

TEST_CASE("model: unimpp: eq. 8 sums the parts and eq. 9 sums over computers") {
  CHECK(response_time(12.5, 1.75, 2.0, 0.5, 3.0) == Approx(19.75));
  std::vector<double> parts = {10.0, 4.5, 0.25};
  CHECK(migrated_response_time(parts) == Approx(14.75));
}

TEST_CASE("model: unimpp: a measured table beyond the knee is interpolated, then extended along its chord") {
  SlowdownFunction f;
  f.main_memory_mb = 100;
  f.main = {0, 0};  // flat below the knee
  f.virtual_table = {{110, 2}, {130, 6}, {150, 7}};
  CHECK(f.form() == "linear + measured table (3 points)");
  CHECK(f.alpha(50) == 0);
  CHECK(f.alpha(105) == Approx(1));  // from (knee 100, 0) to (110, 2)
  CHECK(f.alpha(120) == Approx(4));  // between 110 and 130
  CHECK(f.alpha(150) == Approx(7));
  CHECK(f.alpha(200) == Approx(7 + 50 * 7.0 / 50));  // chord from (100, 0) to (150, 7)
  f.virtual_memory = ExponentialSlowdown{1, 1};      // the table wins when both are present
  CHECK(f.alpha(120) == Approx(4));
}
