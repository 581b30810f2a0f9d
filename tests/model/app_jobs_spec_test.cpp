// The workload's application jobs ("apps"): read once into typed structs, every malformed field named
// with the file, its JSON path and what was expected; computer names are left to bind (bind_test.cpp).
#include <catch2/catch.hpp>

#include "hetperf/model/app_jobs_spec.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/workload.hpp"
#include "test_support.hpp"

using namespace hetperf;
using hetperf::test::input_error;

namespace {

std::vector<AppJobSpec> read(const nlohmann::json& apps) {
  return app_jobs_from_json(JsonNode(apps, "w.json", "$.apps"));
}

std::string error_of(const char* text) {
  return input_error([&] { read(nlohmann::json::parse(text)); });
}

}  // namespace

TEST_CASE("model: application jobs are read with their options, defaults and mapping rule") {
  auto jobs = read(nlohmann::json::parse(R"([
    {"name": "lu", "app": "lu", "ranks": 3, "n": 960, "r": 96, "variant": "flow_control", "window": 3,
     "remove": {"ranks": 1, "after_iteration": 4}, "computers": ["b", "a"], "start_s": 2},
    {"app": "lu", "ranks": 4, "n": 960, "r": 96, "mapping": "block"},
    {"name": "int", "app": "integrate", "instances": 2, "steps": 1000, "mapping": ["b", "b", "a", "a"]}])"));
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].kind == AppKind::kLu);
  CHECK(jobs[0].json_path == "$.apps[0]");
  CHECK(jobs[0].start_s == 2);
  CHECK(jobs[0].lu.variant == LuVariant::kFlowControl);
  CHECK(jobs[0].lu.window == 3);
  CHECK(jobs[0].lu.remove_ranks == 1);
  CHECK(jobs[0].lu.remove_after_iteration == 4);
  CHECK(jobs[0].mapping.rule == RankMappingSpec::Rule::kCyclic);  // the default
  CHECK(jobs[0].mapping.computers == std::vector<std::string>{"b", "a"});
  CHECK(jobs[1].name == "lu-1");
  CHECK(jobs[1].lu.variant == LuVariant::kBasic);
  CHECK(jobs[1].lu.window == 2);
  CHECK(jobs[1].lu.remove_ranks == 0);
  CHECK(jobs[1].mapping.rule == RankMappingSpec::Rule::kBlock);
  CHECK(jobs[2].kind == AppKind::kIntegrate);
  CHECK(jobs[2].ranks == 2);
  CHECK(jobs[2].total_ranks() == 4);
  CHECK(jobs[2].integrate.a == 0);
  CHECK(jobs[2].integrate.b == 1);
  CHECK(jobs[2].integrate.message_bytes == 32);
  CHECK(jobs[2].integrate.disk_bytes == 0);
  CHECK(jobs[2].mapping.rule == RankMappingSpec::Rule::kList);
  CHECK(jobs[2].mapping.ranks == std::vector<std::string>{"b", "b", "a", "a"});
}

TEST_CASE("model: malformed application jobs name the path, the field and what was expected") {
  CHECK_THAT(error_of("[]"), Catch::StartsWith("w.json: $.apps: expected an array of at least 1"));
  CHECK_THAT(error_of("[3]"),
             Catch::StartsWith("w.json: $.apps[0]: expected an object {\"app\": \"lu\" | \"integrate\""));
  CHECK_THAT(error_of(R"([{"app": "fft"}])"),
             Catch::StartsWith("w.json: $.apps[0].app: expected one of \"lu\", \"integrate\""));
  CHECK_THAT(error_of(R"([{"app": "lu", "n": 96, "r": 48}])"),
             Catch::StartsWith("w.json: $.apps[0].ranks: missing required field"));
  CHECK(error_of(R"([{"app": "lu", "ranks": 2, "n": 100, "r": 200}])") ==
        "w.json: $.apps[0].r: expected a block width no larger than n = 100, got 200");
  CHECK(error_of(R"([{"app": "lu", "ranks": 2, "n": 100, "r": 30}])") ==
        "w.json: $.apps[0].r: expected a block width that divides n = 100, got 30");
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": -4, "r": 2}])"),
             Catch::StartsWith("w.json: $.apps[0].n: expected an integer in [1,"));
  CHECK(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "remove": {"ranks": 2, "after_iteration": 0}}])") ==
        "w.json: $.apps[0].remove.ranks: expected fewer ranks to leave than the 2 running, got 2");
  CHECK(error_of(R"([{"app": "lu", "ranks": 3, "n": 96, "r": 24, "remove": {"ranks": 1, "after_iteration": 3}}])") ==
        "w.json: $.apps[0].remove.after_iteration: expected an iteration in [0, 2] (there are 4 iterations), got 3");
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "remove": {"ranks": 1}}])"),
             Catch::StartsWith("w.json: $.apps[0].remove.after_iteration: missing required field"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "variant": "fast"}])"),
             Catch::StartsWith("w.json: $.apps[0].variant: expected one of"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "window": 0}])"),
             Catch::StartsWith("w.json: $.apps[0].window: expected an integer in [1,"));
  CHECK(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "mapping": ["a"]}])") ==
        "w.json: $.apps[0].mapping: expected one computer name per rank (2), not 1, got an array of 1");
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "mapping": "random"}])"),
             Catch::StartsWith("w.json: $.apps[0].mapping: expected one of \"cyclic\", \"block\""));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "mapping": ["a", 7]}])"),
             Catch::StartsWith("w.json: $.apps[0].mapping[1]: expected a string"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "computers": []}])"),
             Catch::StartsWith("w.json: $.apps[0].computers: expected an array of at least 1"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "start_s": -1}])"),
             Catch::StartsWith("w.json: $.apps[0].start_s: expected a non-negative number"));
  CHECK_THAT(error_of(R"([{"app": "integrate", "ranks_per_instance": 1}])"),
             Catch::StartsWith("w.json: $.apps[0].ranks_per_instance: expected an integer in [2,"));
  CHECK(error_of(R"([{"app": "integrate", "a": 2, "b": 1}])") ==
        "w.json: $.apps[0].b: expected a number > a (2), got 1");
  CHECK(error_of(R"([{"app": "integrate", "a": 2}])") ==
        "w.json: $.apps[0].a: expected a number < b (1, the default), got 2");
  CHECK(error_of(R"([{"app": "integrate", "message_bytes": 15}])") ==
        "w.json: $.apps[0].message_bytes: expected at least 16 bytes (the message carries the interval), got 15");
  CHECK_THAT(error_of(R"([{"app": "integrate", "steps": 0}])"),
             Catch::StartsWith("w.json: $.apps[0].steps: expected an integer in [1,"));
  CHECK_THAT(error_of(R"([{"app": "integrate", "instances": 1048576, "ranks_per_instance": 2}])"),
             Catch::StartsWith("w.json: $.apps[0].instances: expected at most 1048576 ranks in all"));
  CHECK_THAT(error_of(R"([{"app": "integrate", "bogus": 1}])"),
             Catch::StartsWith("w.json: $.apps[0].bogus: unknown field 'bogus'"));
  CHECK_THAT(error_of(R"([{"app": "integrate", "ranks": 4}])"),
             Catch::StartsWith("w.json: $.apps[0].ranks: unknown field 'ranks'"));
  CHECK(error_of(R"([{"name": "x", "app": "integrate"}, {"name": "x", "app": "integrate"}])") ==
        "w.json: $.apps[1].name: expected a name not already used by $.apps[0], got the string \"x\"");
}

TEST_CASE("model: malformed LU broadcast and parallel-multiply options name the field and the rule") {
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "bcast": "star"}])"),
             Catch::StartsWith("w.json: $.apps[0].bcast: expected one of \"sequential\", \"tree\", \"ring\""));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "bcast": 3}])"),
             Catch::StartsWith("w.json: $.apps[0].bcast: expected"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "parallel_multiply": 0}])"),
             Catch::StartsWith("w.json: $.apps[0].parallel_multiply: expected an integer in [1,"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "parallel_multiply": 1.5}])"),
             Catch::StartsWith("w.json: $.apps[0].parallel_multiply: expected an integer"));
  CHECK(error_of(R"([{"app": "lu", "ranks": 8, "n": 96, "r": 48, "parallel_multiply": 5}])") ==
        "w.json: $.apps[0].parallel_multiply: expected a number of sub-blocks that divides r = 48, got 5");
  CHECK(error_of(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "parallel_multiply": 4}])") ==
        "w.json: $.apps[0].parallel_multiply: expected at most one sub-block per rank: no more than the 2 ranks "
        "that stay, got 4");
  // Ranks that leave cannot hold shares: the rule counts those that stay.
  CHECK(error_of(R"([{"app": "lu", "ranks": 4, "n": 192, "r": 48, "parallel_multiply": 4,
                      "remove": {"ranks": 1, "after_iteration": 0}}])") ==
        "w.json: $.apps[0].parallel_multiply: expected at most one sub-block per rank: no more than the 3 ranks "
        "that stay, got 4");
  auto jobs = read(nlohmann::json::parse(R"([{"app": "lu", "ranks": 4, "n": 192, "r": 48, "parallel_multiply": 3,
                                               "bcast": "ring", "remove": {"ranks": 1, "after_iteration": 0}}])"));
  CHECK(jobs[0].lu.parallel_multiply == 3);
  CHECK(jobs[0].lu.bcast == LuBcast::kRing);
}

TEST_CASE("model: application jobs round-trip through the workload writer with every option written") {
  nlohmann::json w = nlohmann::json::parse(R"({"schema": "hetperf.workload/1", "apps": [
    {"app": "lu", "ranks": 3, "n": 960, "r": 96, "remove": {"ranks": 1, "after_iteration": 4}, "computers": ["b"]},
    {"name": "int", "app": "integrate", "instances": 2, "b": 3.5, "disk_bytes": 100, "mapping": ["b", "b", "a", "a"]}]})");
  nlohmann::json out = to_json(workload_from_json(w, "w.json"));
  CHECK(out["apps"][0]["name"] == "lu-0");
  CHECK(out["apps"][0]["variant"] == "basic");
  CHECK(out["apps"][0]["mapping"] == "cyclic");
  CHECK(out["apps"][1]["steps"] == 10'000'000);
  // The defaults of the broadcast and PM are not written (the batch jobs' LU models share the writer
  // and take neither); other values are, and read back.
  CHECK(!out["apps"][0].contains("bcast"));
  CHECK(!out["apps"][0].contains("parallel_multiply"));
  CHECK(to_json(workload_from_json(out, "w2.json")) == out);
  w["apps"][0]["bcast"] = "tree";
  w["apps"][0]["parallel_multiply"] = 2;
  out = to_json(workload_from_json(w, "w.json"));
  CHECK(out["apps"][0]["bcast"] == "tree");
  CHECK(out["apps"][0]["parallel_multiply"] == 2);
  CHECK(to_json(workload_from_json(out, "w2.json")) == out);
}

TEST_CASE("model: the LU rules between options are shared by the reader and the programs' flags") {
  LuSpec lu{1024, 128, LuVariant::kBasic, 2, 0, -1};
  CHECK(!lu_violation(lu, 4));
  lu.r = 100;
  REQUIRE(lu_violation(lu, 4));
  CHECK(lu_violation(lu, 4)->field == "r");
  lu.r = 128, lu.remove_ranks = 1, lu.remove_after_iteration = 7;  // 8 iterations: the last removal point is 6
  CHECK(lu_violation(lu, 4)->field == "remove.after_iteration");
  lu.remove_after_iteration = 6;
  CHECK(!lu_violation(lu, 4));
  CHECK(lu_violation(lu, 1)->field == "remove.ranks");
  lu.parallel_multiply = 3;  // 3 ranks stay, but 3 does not divide r = 128
  CHECK(lu_violation(lu, 4)->field == "parallel_multiply");
  lu.parallel_multiply = 4;  // divides r, but only 3 ranks stay
  CHECK(lu_violation(lu, 4)->field == "parallel_multiply");
  CHECK(!lu_violation(lu, 5));
}

TEST_CASE("model: an LU expansion is read, written back and checked against the ranks and the removal") {
  auto jobs = read(nlohmann::json::parse(R"([{"app": "lu", "ranks": 8, "n": 960, "r": 96,
      "expand": {"ranks": 4, "after_iteration": 2}, "remove": {"ranks": 4, "after_iteration": 5}}])"));
  CHECK(jobs[0].lu.expand_ranks == 4);
  CHECK(jobs[0].lu.expand_after_iteration == 2);
  CHECK(lu_to_json(jobs[0].lu)["expand"]["after_iteration"] == 2);
  CHECK(error_of(R"([{"app": "lu", "ranks": 4, "n": 960, "r": 96, "expand": {"ranks": 4, "after_iteration": 2}}])") ==
        "w.json: $.apps[0].expand.ranks: expected fewer ranks to join than the 4 of the run, got 4");
  CHECK_THAT(
      error_of(R"([{"app": "lu", "ranks": 4, "n": 960, "r": 96, "expand": {"ranks": 2, "after_iteration": 9}}])"),
      Catch::StartsWith("w.json: $.apps[0].expand.after_iteration: expected an iteration in [0, 8]"));
  CHECK_THAT(
      error_of(R"([{"app": "lu", "ranks": 4, "n": 960, "r": 96, "expand": {"ranks": 2, "after_iteration": 3},
                           "remove": {"ranks": 2, "after_iteration": 3}}])"),
      Catch::StartsWith("w.json: $.apps[0].remove.after_iteration: expected an iteration after the expansion's (3)"));
  CHECK_THAT(error_of(R"([{"app": "lu", "ranks": 4, "n": 960, "r": 96, "expand": {"ranks": 2}}])"),
             Catch::StartsWith("w.json: $.apps[0].expand.after_iteration: missing required field"));
}

TEST_CASE(
    "model: an LU whose simulation would take more operations than any run may is refused at its r, before any "
    "simulation") {
  // n / r = 16·10⁶ iterations: about 10¹⁵ operations one by one.
  const std::string e = error_of(R"([{"app": "lu", "ranks": 16, "n": 16000000, "r": 1}])");
  CHECK(e.find("w.json: $.apps[0].r: expected a block width whose simulation takes at most 1e+10 operations") !=
        std::string::npos);
  CHECK(e.find("16000000 iterations on 16 ranks") != std::string::npos);
  // The scale benchmark's largest LU stays within: n = 1,048,576, r = 128 on 16,384 ranks.
  LuSpec lu;
  lu.n = 1 << 20, lu.r = 128;
  CHECK(lu_simulated_operations(lu, 16384) == Approx(4.0 * 8192 * 8192 + 10.0 * 8192 * 16384));
  CHECK(lu_simulated_operations(lu, 16384) < kMaxLuSimulatedOperations);
  CHECK_NOTHROW(read(nlohmann::json::parse(R"([{"app": "lu", "ranks": 16384, "n": 1048576, "r": 128}])")));
}
