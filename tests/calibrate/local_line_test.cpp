// Tests of calibrate/src/local_line.cpp: a local message line from a loopback ping-pong.
#include <catch2/catch.hpp>

#include "hetperf/calibrate/local_line.hpp"
#include "hetperf/model/app_model.hpp"
#include "hetperf/model/json_node.hpp"
#include "synthetic_measurement.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

TEST_CASE("calibrate: a loopback ping-pong gives one-core computers without a fitted line their local messages") {
  hetperf::testing::SyntheticOptions o;
  o.machine = "host";
  o.hosts = {"host", "host"};
  o.latency_s = 2e-6;
  o.bandwidth_bytes_per_s = 5e9;
  const Measurement loopback = hetperf::testing::synthetic_measurement(o);
  const auto line = local_line_from_pingpong(loopback, "measurement-host.json");
  REQUIRE(line);
  // g from the sizes from 64 KiB on; l the smallest size's one-way time (1 B here).
  CHECK(1 / line->seconds_per_byte == Approx(5e9).epsilon(1e-9));
  CHECK(line->latency_s == Approx(2e-6 + 1 / 5e9).epsilon(1e-9));
  CHECK(line->source.find("measurement-host.json") != std::string::npos);

  Profile p;
  for (const char* name : {"one", "fitted", "two"}) {
    Computer c;
    c.name = name;
    c.cores = std::string(name) == "two" ? 2 : 1;
    p.computers.push_back(c);
  }
  MessageModel traced;
  traced.latency_s = 1e-3;
  traced.messages = 10;
  p.computers[1].app_models.messages = traced;
  CHECK(use_local_line(p, *line) == 1);
  REQUIRE(p.computers[0].app_models.messages);
  CHECK(p.computers[0].app_models.messages->seconds_per_byte == line->seconds_per_byte);
  CHECK(p.computers[1].app_models.messages->latency_s == 1e-3);  // a fitted line stays
  CHECK_FALSE(p.computers[2].app_models.messages);               // two cores: its traces fit it

  // The line survives the profile's JSON, with its source and no application messages.
  const AppModels back = app_models_from_json(JsonNode(to_json(p.computers[0].app_models), "p.json"));
  REQUIRE(back.messages);
  CHECK(back.messages->source == line->source);
  CHECK(back.messages->messages == 0);

  // Not a loopback (two hosts), or no sizes from 64 KiB on: no line.
  o.hosts = {"a", "b"};
  CHECK_FALSE(local_line_from_pingpong(hetperf::testing::synthetic_measurement(o), "m.json"));
  o.hosts = {"host", "host"};
  o.sizes = 16;  // up to 32 KiB
  CHECK_FALSE(local_line_from_pingpong(hetperf::testing::synthetic_measurement(o), "m.json"));
}
