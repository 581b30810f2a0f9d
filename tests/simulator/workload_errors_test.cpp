// A bad workload gives one clear InputError naming the file and the field (workload reader and
// simulator checks).
#include <catch2/catch.hpp>

#include "hetperf/model/error.hpp"
#include "simulator/simulation_fixtures.hpp"

using namespace hetperf;
using nlohmann::json;

namespace {

// The message of the InputError that simulating `processes` with `policy` raises.
std::string error_of(json processes, json policy = {{"placement", "round_robin"}}) {
  Profile profile = test::profile(json::array({test::computer("A"), test::computer("B")}));
  try {
    test::run(profile, test::workload(std::move(processes), std::move(policy)));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

bool mentions(const std::string& message, const std::string& part) {
  INFO(message);
  return message.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("simulator: an unknown placement policy names $.policy.placement and the known policies") {
  std::string m = error_of(json::array({{{"name", "p"}, {"mi", 1}}}), {{"placement", "best_fit"}});
  CHECK(mentions(m, "test-workload.json: $.policy.placement"));
  CHECK(mentions(m, "best_fit"));
  CHECK(mentions(m, "least_loaded"));
}

TEST_CASE("simulator: a negative mp is rejected naming the field") {
  std::string m = error_of(json::array({{{"name", "p"}, {"mi", -5}}}));
  CHECK(mentions(m, "$.processes[0].mi"));
  CHECK(mentions(m, "-5"));
}

TEST_CASE("simulator: a distribution with invalid parameters is rejected naming the parameter") {
  CHECK(mentions(
      error_of(json::array(
          {{{"name", "p"}, {"mi", 1}, {"dynamic_memory_mb", {{"distribution", "exponential"}, {"mean", -2}}}}})),
      "$.processes[0].dynamic_memory_mb.mean"));
  CHECK(
      mentions(error_of(json::array({{{"name", "p"}, {"mi", {{"distribution", "uniform"}, {"min", 5}, {"max", 1}}}}})),
               "$.processes[0].mi.max"));
  CHECK(mentions(error_of(json::array(
                     {{{"name", "p"},
                       {"mi", {{"distribution", "hyperexponential"}, {"weights", {0.5, 0.6}}, {"means", {1, 2}}}}}})),
                 "$.processes[0].mi.weights"));
  CHECK(mentions(
      error_of(json::array({{{"name", "p"}, {"mi", {{"distribution", "normal"}, {"mean", 5}, {"stddev", 1}}}}})),
      "non-negative support"));
  CHECK(mentions(
      error_of(json::array({{{"name", "p"}, {"mi", {{"distribution", "weibull"}, {"shape", 0}, {"scale", 1}}}}})),
      "$.processes[0].mi.shape"));
}

TEST_CASE("simulator: a process larger than every computer's main plus virtual memory is rejected naming the field") {
  std::string m =
      error_of(json::array({{{"name", "small"}, {"mi", 1}},
                            {{"name", "huge"}, {"mi", 1}, {"static_memory_mb", 1500}, {"dynamic_memory_mb", 600}}}));
  CHECK(mentions(m, "test-workload.json: $.processes[1].static_memory_mb"));
  CHECK(mentions(m, "2100"));
  CHECK(mentions(m, "main plus virtual memory"));
}

TEST_CASE("simulator: a process pinned to an unknown computer or messaging an unknown peer is rejected") {
  CHECK(mentions(error_of(json::array({{{"name", "p"}, {"mi", 1}, {"computer", "Z"}}})), "$.processes[0].computer"));
  CHECK(mentions(error_of(json::array(
                     {{{"name", "p"}, {"mi", 1}, {"messages", {{"count", 2}, {"bytes", 1}, {"peer", "nobody"}}}}})),
                 "$.processes[0].messages.peer"));
  CHECK(mentions(
      error_of(json::array({{{"name", "w"}, {"count", 2}, {"mi", 1}},
                            {{"name", "p"}, {"mi", 1}, {"messages", {{"count", 2}, {"bytes", 1}, {"peer", "w"}}}}})),
      "count 1"));
}

TEST_CASE("simulator: an invalid load balancer is rejected naming its field") {
  json one = json::array({{{"name", "p"}, {"mi", 1}}});
  CHECK(mentions(error_of(one, {{"load_balancer", {{"period_s", 0}}}}), "$.policy.load_balancer.period_s"));
  CHECK(mentions(error_of(one, {{"load_balancer", {{"period_s", 1}, {"threshold", 0.5}}}}),
                 "$.policy.load_balancer.threshold"));
  CHECK(mentions(error_of(one, {{"load_balancer", {{"period_s", 1}, {"migration_cost_s", -1}}}}),
                 "$.policy.load_balancer.migration_cost_s"));
  CHECK(mentions(error_of(one, {{"load_balancer", {{"period", 1}}}}), "period"));
}
