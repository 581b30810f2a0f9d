// The shipped example platforms (examples/platforms/) load and hold UniMPP's published figures.
#include <cmath>

#include <catch2/catch.hpp>

#include "hetperf/model/profile.hpp"

using namespace hetperf;

TEST_CASE("calibrate: example platform c1c2 holds UniMPP paper Tables 1 and 2") {
  Profile p = read_profile(std::string(HETPERF_SOURCE_DIR) + "/examples/platforms/c1c2.json");
  REQUIRE(p.computers.size() == 2);
  const Computer& c1 = p.computers[*p.find("c1")];
  CHECK(c1.mips == 1145.86);
  CHECK(p.computers[*p.find("c2")].mips == 1148.65);
  CHECK(c1.main_memory_mb == 1024);
  CHECK(c1.disk_write_bytes_per_s == Approx(65.55 * 1048576));
  CHECK(c1.overhead_latency_s == 0.000040);
  CHECK(c1.alpha(512) == Approx(0.0012 * 512 - 0.0065));
  CHECK(c1.alpha(1500) == Approx(0.0938 * std::exp(0.0039 * 1500)));
  CHECK_THAT(p.description, Catch::Contains("1048576"));
}

TEST_CASE("calibrate: example platform c3c4 holds UniMPP paper Tables 4, 5 and 6") {
  Profile p = read_profile(std::string(HETPERF_SOURCE_DIR) + "/examples/platforms/c3c4.json");
  const Computer& c3 = p.computers[*p.find("c3")];
  const Computer& c4 = p.computers[*p.find("c4")];
  CHECK(c3.mips == 927.55);
  CHECK(c4.mips == 1600.40);
  CHECK(c3.virtual_memory_mb == 400);
  CHECK(c4.disk_read_bytes_per_s == Approx(32.55 * 1048576));
  CHECK(c3.alpha(200) == Approx(0.0018 * 200 - 0.0007));
  CHECK(c3.alpha(300) == Approx(0.7335 * std::exp(0.0097 * 300)));
  CHECK(c4.alpha(300) == Approx(0.0018 * 300 - 0.0035));
  CHECK(c4.alpha(600) == Approx(0.0924 * std::exp(0.0095 * 600)));
  CHECK(c4.overhead_latency_s == 0.000056924);
}
