// Tests of the host facts (model/include/hetperf/model/host.hpp).
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "hetperf/model/host.hpp"

using namespace hetperf;

TEST_CASE("model: /proc/meminfo fields are read by their whole name, in bytes") {
  std::ifstream in("/proc/meminfo");
  if (!in) {
    WARN("skipped: no /proc/meminfo here");
    return;
  }
  const auto total = meminfo_bytes("MemTotal");
  REQUIRE(total.has_value());
  CHECK(*total > 64ull << 20);
  CHECK(*total % 1024 == 0);  // the file counts kB
  const auto available = meminfo_bytes("MemAvailable");
  REQUIRE(available.has_value());
  CHECK(*available <= *total);
  // A prefix of a field is not the field, nor is an unknown name.
  CHECK_FALSE(meminfo_bytes("Mem").has_value());
  CHECK_FALSE(meminfo_bytes("NoSuchField").has_value());
  // Fields after a count without a unit (HugePages_Total) are still found.
  CHECK(meminfo_bytes("Hugepagesize").has_value());
  const auto limited = available_memory_bytes();
  REQUIRE(limited.has_value());
  CHECK(*limited <= *total);
}
