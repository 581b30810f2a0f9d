// Tests of the run usage record (model/include/hetperf/model/run_usage.hpp).
#include <catch2/catch.hpp>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/run_usage.hpp"

using namespace hetperf;

TEST_CASE("model: a run's usage counts its CPU time and the host's shares, and round-trips through JSON") {
  RunUsageMeter meter;
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + 1e-9 * i;  // ~20 ms of CPU
  RunUsage u = meter.stop();
  CHECK(u.wall_s > 0);
  CHECK(u.cpu_s > 0);
  CHECK(u.cpu_s <= u.wall_s * 1.5 + 0.02);  // one thread: CPU time cannot run far ahead of the clock
  if (read_host_cpu_ticks()) {
    REQUIRE(u.host_busy_share.has_value());
    CHECK(*u.host_busy_share >= 0);
    CHECK(*u.host_busy_share <= 1);
    CHECK(*u.host_steal_share >= 0);
  }
  nlohmann::json j = to_json(u);
  RunUsage back = run_usage_from_json(JsonNode(j, "u.json"));
  CHECK(back.wall_s == u.wall_s);
  CHECK(back.host_steal_share == u.host_steal_share);
  nlohmann::json bad = {{"wall_s", 1}, {"cpu_s", 1}, {"host_steal_share", 1.5}};
  CHECK_THROWS_AS(run_usage_from_json(JsonNode(bad, "u.json")), InputError);
}
