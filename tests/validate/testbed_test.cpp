// Tests of the testbed spec reader and the shaping commands (validate/src/testbed.cpp). `up` and
// `down` themselves need root: tests/cli/testbed_cleanup.sh and testbed_mpi.sh.
#include <catch2/catch.hpp>

#include "hetperf/validate/testbed.hpp"
#include "test_support.hpp"

using namespace hetperf;
using namespace hetperf::validate;
using hetperf::test::input_error;

namespace {

const std::vector<int> kCpus = {0, 1};

nlohmann::json two_computers() {
  return nlohmann::json::parse(R"({
    "schema": "hetperf.testbed/1", "name": "duo", "subnet": "10.231.7.0/24", "cpu_period_us": 10000,
    "computers": [
      {"name": "a", "cores": [0], "memory_mb": 2048, "link": {"rate_mbit": 100}},
      {"name": "b", "cores": [1], "cpu_share": 0.5, "memory_mb": 1024, "link": {"rate_mbit": 10, "delay_ms": 2}}]})");
}

std::string error_with(const std::string& pointer, const nlohmann::json& value) {
  nlohmann::json spec = two_computers();
  spec[nlohmann::json::json_pointer(pointer)] = value;
  return input_error([&] { parse_testbed_spec(spec, "tb.json", kCpus); });
}

}  // namespace

TEST_CASE("validate: a testbed spec is read with its defaults and names its resources") {
  TestbedSpec s = parse_testbed_spec(two_computers(), "tb.json", kCpus);
  REQUIRE(s.computers.size() == 2);
  CHECK(s.name == "duo");
  CHECK(s.computers[0].cpu_share == 1);
  CHECK(s.computers[1].cpu_share == 0.5);
  CHECK(s.computers[1].memory_mb == 1024);
  CHECK(s.computers[1].link.rate_mbit == 10);
  CHECK(s.computers[1].link.delay_ms == 2);
  CHECK(testbed_address(s, 1) == "10.231.7.2");
  CHECK(testbed_host_address(s) == "10.231.7.254");
  CHECK(testbed_netns(s, 0) == "hetperf-duo-a");
  CHECK(testbed_bridge(s) == "hb-duo");
  CHECK(testbed_host_veth(s, 1) == "hv-duo-1");
  // Written back, it reads the same.
  TestbedSpec again = parse_testbed_spec(to_json(s), "again.json", kCpus);
  CHECK(to_json(again) == to_json(s));
}

TEST_CASE("validate: a testbed link is shaped by tbf at its rate, with netem as the child for a delay") {
  auto cmds = shaping_commands({"tc", "-n", "ns"}, "eth0", {100, 0});
  REQUIRE(cmds.size() == 1);
  CHECK(cmds[0] == std::vector<std::string>{"tc", "-n", "ns", "qdisc", "add", "dev", "eth0", "root", "handle",
                                            "1:", "tbf", "rate", "100000000bit", "burst", "12500", "latency", "50ms"});
  cmds = shaping_commands({"tc"}, "hv-duo-1", {1, 2.5});
  REQUIRE(cmds.size() == 2);
  CHECK(cmds[0][10] == "1000000bit");
  CHECK(cmds[0][12] == "4096");  // never under a full-size frame
  CHECK(cmds[1] == std::vector<std::string>{"tc", "qdisc", "add", "dev", "hv-duo-1", "parent", "1:1", "handle",
                                            "10:", "netem", "delay", "2.500ms"});
}

TEST_CASE("validate: a malformed testbed spec is one error naming the file, the JSON path and what was expected") {
  CHECK(error_with("/schema", "hetperf.testbed/9").find("tb.json: $.schema") != std::string::npos);
  CHECK(error_with("/name", "Has-Caps") ==
        "tb.json: $.name: expected 1 to 8 lower-case letters or digits (it prefixes "
        "interface names of 15 characters), got the string \"Has-Caps\"");
  CHECK(error_with("/subnet", "10.1.2.0/16").find("tb.json: $.subnet: expected an IPv4 /24") == 0);
  CHECK(error_with("/subnet", "10.300.2.0/24").find("tb.json: $.subnet") == 0);
  CHECK(error_with("/cpu_period_us", 10).find("tb.json: $.cpu_period_us") == 0);
  CHECK(error_with("/computers", nlohmann::json::array()).find("tb.json: $.computers") == 0);
  CHECK(error_with("/computers/1/name", "a").find("tb.json: $.computers[1].name: expected a name no other") == 0);
  CHECK(error_with("/computers/1/name", "1b").find("tb.json: $.computers[1].name: expected a host name") == 0);
  CHECK(error_with("/computers/0/cores/0", 7)
            .find("tb.json: $.computers[0].cores[0]: expected a CPU online on this machine (0,1)") == 0);
  CHECK(error_with("/computers/0/cores", {0, 0})
            .find("tb.json: $.computers[0].cores[1]: expected a CPU not listed twice") == 0);
  CHECK(error_with("/computers/0/cores", nlohmann::json::array()).find("tb.json: $.computers[0].cores") == 0);
  CHECK(error_with("/computers/1/cpu_share", 1.5).find("tb.json: $.computers[1].cpu_share: expected a fraction") == 0);
  CHECK(error_with("/computers/1/cpu_share", 0.05)
            .find("tb.json: $.computers[1].cpu_share: expected a share whose quota") == 0);
  CHECK(error_with("/computers/1/memory_mb", 8).find("tb.json: $.computers[1].memory_mb") == 0);
  CHECK(error_with("/computers/1/link/rate_mbit", -1).find("tb.json: $.computers[1].link.rate_mbit") == 0);
  CHECK(error_with("/computers/1/link/delay_ms", -1).find("tb.json: $.computers[1].link.delay_ms") == 0);
  CHECK(error_with("/computers/1/link/jitter_ms", 1).find("tb.json: $.computers[1].link") == 0);
  CHECK(error_with("/computers/1/speed", 1).find("tb.json: $.computers[1]") == 0);
  nlohmann::json no_link = two_computers();
  no_link["computers"][0].erase("link");
  CHECK(input_error([&] {
          parse_testbed_spec(no_link, "tb.json", kCpus);
        }).find("tb.json: $.computers[0].link: missing") == 0);
}
