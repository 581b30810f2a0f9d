// The workload's batch jobs ("jobs") and scheduler settings ("scheduler"): typed structs read once at
// the border, every malformed field named with the file and its JSON path.
#include <catch2/catch.hpp>

#include "hetperf/model/batch_jobs.hpp"
#include "hetperf/model/batch_scheduler.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/workload.hpp"
#include "test_support.hpp"

using namespace hetperf;
using hetperf::test::input_error;

namespace {

std::vector<BatchJob> jobs(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  return batch_jobs_from_json(JsonNode(j, "test.json", "$.jobs"));
}

std::string jobs_error(const std::string& text) {
  return input_error([&] { jobs(text); });
}

BatchSchedulerSpec scheduler(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  return batch_scheduler_from_json(JsonNode(j, "w.json", "$.scheduler"));
}

std::string scheduler_error(const std::string& text) {
  return input_error([&] { scheduler(text); });
}

}  // namespace

TEST_CASE("model: batch jobs of every type are read into typed structs") {
  auto js = jobs(R"([
    {"name": "a", "processors": 4, "run_time_s": 100, "requested_time_s": 150, "submit_s": 5},
    {"type": "moldable", "processors": [8, 2, 4, 2], "app": {"kind": "table", "iterations": 3,
     "iteration_time_s": {"2": 10, "4": 6, "8": 4}}},
    {"type": "malleable", "processors": 2, "app": {"kind": "table", "iteration_time_s": {"2": 10, "4": 6}},
     "resize": {"topology": "divides", "problem_size": 8, "max_processors": 4, "data_bytes": 1e6,
                "remove": {"after_iteration": 2, "processors": 1}, "min_efficiency": 0.5}}])");
  REQUIRE(js.size() == 3);
  CHECK(js[0].id == 1);
  CHECK(js[0].where == "test.json: $.jobs[0]");
  CHECK(js[0].kind == BatchJobKind::kRigid);
  CHECK(js[0].submit_s == 5);
  CHECK(js[0].run_time_at(4) == 100);
  CHECK(js[0].estimate_at(4) == 150);
  CHECK(js[1].name == "job-2");
  CHECK(js[1].allowed == std::vector<std::int64_t>{2, 4, 8});  // ascending, distinct
  CHECK(js[1].start_options() == js[1].allowed);
  CHECK(js[1].run_time_at(4) == 18);  // 3 iterations of 6 s
  CHECK(js[2].resize.topology == ResizeTopology::kDivides);
  CHECK(js[2].resize.problem_size == 8);
  CHECK(js[2].resize.data_bytes == 1e6);
  CHECK(js[2].resize.remove_after_iteration == 2);
  CHECK(js[2].resize.min_efficiency == 0.5);
}

TEST_CASE("model: batch-job errors name the file and the JSON path") {
  CHECK_THAT(jobs_error(R"([{"processors": 2, "run_time_s": 1}, {"processors": 0, "run_time_s": 1}])"),
             Catch::StartsWith("test.json: $.jobs[1].processors: expected a processor count"));
  CHECK(jobs_error(R"([{"processors": 2}])") ==
        "test.json: $.jobs[0]: expected a rigid job with exactly one of run_time_s and app, got an object");
  CHECK_THAT(
      jobs_error(R"([{"type": "malleable", "processors": 3, "app": {"kind": "table", "iteration_time_s": {"2": 1}}}])"),
      Catch::StartsWith("test.json: $.jobs[0].processors: expected a processor count listed in app"));
  CHECK_THAT(
      jobs_error(
          R"([{"type": "moldable", "processors": [2, 3], "app": {"kind": "table", "iteration_time_s": {"2": 1}}}])"),
      Catch::StartsWith("test.json: $.jobs[0].processors[1]: expected a processor count listed in app"));
  CHECK_THAT(jobs_error(R"([{"processors": 2, "app": {"kind": "fft", "iteration_time_s": {"2": 1}}}])"),
             Catch::StartsWith("test.json: $.jobs[0].app.kind: expected one of \"table\", \"lu\", \"integrate\""));
  CHECK(jobs_error(R"([{"processors": 2, "app": {"kind": "table", "iteration_time_s": {"two": 1}}}])") ==
        "test.json: $.jobs[0].app.iteration_time_s: expected processor counts (integers >= 1) as keys, got \"two\"");
  CHECK(jobs_error(R"([{"processors": 8, "app": {"kind": "table", "iteration_time_s": {"8": 4, "08": 5}}}])") ==
        "test.json: $.jobs[0].app.iteration_time_s.8: processor count 8 is already given as \"08\"; expected each "
        "count once");
  CHECK(jobs_error(R"([{"processors": 2, "app": {"kind": "table", "iteration_time_s": {"2": 0}}}])") ==
        "test.json: $.jobs[0].app.iteration_time_s.2: expected a positive number, got 0");
  CHECK_THAT(jobs_error(R"([{"processors": 2, "app": {"kind": "table", "iteration_time_s": {}}}])"),
             Catch::StartsWith("test.json: $.jobs[0].app.iteration_time_s: expected at least one processor count"));
  CHECK_THAT(jobs_error(R"([{"processors": 2, "run_time_s": 1, "resize": {}}])"),
             Catch::StartsWith("test.json: $.jobs[0].resize: expected no resize settings on a rigid job"));
  CHECK_THAT(jobs_error(R"([{"type": "moldable", "processors": [2], "run_time_s": 1}])"),
             Catch::StartsWith("test.json: $.jobs[0]: expected a moldable job with an app model"));
  CHECK_THAT(jobs_error(R"([{"type": "malleable", "processors": 2}])"),
             Catch::StartsWith("test.json: $.jobs[0]: expected a malleable job with an app model"));
  CHECK_THAT(
      jobs_error(R"([{"type": "malleable", "processors": 4, "app": {"kind": "table", "iteration_time_s": {"4": 1}},
                            "resize": {"max_processors": 2}}])"),
      Catch::StartsWith("test.json: $.jobs[0].resize.max_processors: expected at least the initial processors (4)"));
  CHECK_THAT(
      jobs_error(R"([{"type": "malleable", "processors": 4, "app": {"kind": "table", "iteration_time_s": {"4": 1}},
                            "resize": {"topology": "nearly_square"}}])"),
      Catch::StartsWith("test.json: $.jobs[0].resize.problem_size: missing required field"));
  CHECK_THAT(
      jobs_error(R"([{"type": "malleable", "processors": 4, "app": {"kind": "table", "iteration_time_s": {"4": 1}},
                            "resize": {"remove": {"after_iteration": 0, "processors": 1}}}])"),
      Catch::StartsWith("test.json: $.jobs[0].resize.remove.after_iteration: expected an integer in [1,"));
  CHECK(jobs_error(R"([{"type": "malleable", "processors": 4, "app": {"kind": "table", "iteration_time_s": {"4": 1}},
                       "resize": {"redistribution_cost": {"latency_s": 1, "bandwidth_bytes_per_s": 0}}}])") ==
        "test.json: $.jobs[0].resize.redistribution_cost.bandwidth_bytes_per_s: expected a positive number, got 0");
  CHECK_THAT(
      jobs_error(R"([{"type": "malleable", "processors": 4, "app": {"kind": "table", "iteration_time_s": {"4": 1}},
                            "resize": {"redistribution_cost": {"bandwidth_bytes_per_s": 1e8}}}])"),
      Catch::StartsWith("test.json: $.jobs[0].resize.redistribution_cost.latency_s: missing required field"));
  CHECK_THAT(jobs_error(R"([{"processors": 2, "run_time_s": 1, "priority": 3}])"),
             Catch::StartsWith("test.json: $.jobs[0].priority: unknown field 'priority'"));
  CHECK_THAT(jobs_error(R"([])"), Catch::StartsWith("test.json: $.jobs: expected an array of at least 1"));
}

TEST_CASE("model: batch application models are checked like the applications' own options") {
  CHECK(jobs_error(R"([{"processors": 2, "app": {"kind": "lu", "n": 1000, "r": 300}}])") ==
        "test.json: $.jobs[0].app.r: expected a block width that divides n = 1000, got 300");
  CHECK(jobs_error(R"([{"processors": 2, "app": {"kind": "lu", "n": 96, "r": 960}}])") ==
        "test.json: $.jobs[0].app.r: expected a block width no larger than n = 96, got 960");
  CHECK_THAT(jobs_error(R"([{"processors": 2, "app": {"kind": "lu", "n": 960, "r": 96, "remove": {"ranks": 1}}}])"),
             Catch::StartsWith("test.json: $.jobs[0].app.remove: unknown field 'remove'"));
  CHECK_THAT(jobs_error(R"([{"processors": 2, "app": {"kind": "lu", "n": 960, "r": 96, "variant": "fast"}}])"),
             Catch::StartsWith("test.json: $.jobs[0].app.variant: expected one of"));
  CHECK_THAT(jobs_error(R"([{"processors": 2, "app": {"kind": "integrate"}}])"),
             Catch::StartsWith("test.json: $.jobs[0].app.steps: missing required field 'steps'"));
  CHECK(jobs_error(R"([{"processors": 2, "app": {"kind": "integrate", "steps": 10, "message_bytes": 8}}])") ==
        "test.json: $.jobs[0].app.message_bytes: expected at least 16 bytes (the message carries the interval), got 8");
  CHECK_THAT(jobs_error(R"([{"processors": 2, "app": {"kind": "integrate", "steps": 10, "a": 1}}])"),
             Catch::StartsWith("test.json: $.jobs[0].app.a: unknown field 'a'"));
}

TEST_CASE("model: a malleable LU job's redistribution moves its matrix unless the workload says otherwise") {
  auto js = jobs(R"([
    {"type": "malleable", "processors": 2, "app": {"kind": "lu", "n": 1000, "r": 100}},
    {"type": "malleable", "processors": 2, "app": {"kind": "lu", "n": 1000, "r": 100}, "resize": {"data_bytes": 5}},
    {"type": "malleable", "processors": 2, "app": {"kind": "lu", "n": 1000, "r": 100}, "resize": {"redistribution_s": 2}},
    {"type": "malleable", "processors": 2, "app": {"kind": "integrate", "steps": 100}}])");
  CHECK(js[0].resize.data_bytes == 8e6);  // 8 n² bytes: the documented default
  CHECK(js[1].resize.data_bytes == 5);
  CHECK(js[2].resize.data_bytes == 0);
  CHECK(js[2].resize.redistribution_s == 2);
  CHECK(js[3].resize.data_bytes == 0);
  // An application model is tabulated later; its counts are checked then.
  CHECK(js[0].app->kind == BatchAppModel::Kind::kLu);
  CHECK(js[0].app->iteration_time_s.empty());
}

TEST_CASE("model: counts missing from a tabulated application model name the job's processors") {
  auto js = jobs(R"([{"type": "moldable", "processors": [2, 16], "app": {"kind": "lu", "n": 800, "r": 100}}])");
  js[0].app->iteration_time_s = {{1, 4.0}, {2, 2.5}, {8, 1.0}};
  CHECK(input_error([&] { check_tabulated_counts(js[0]); }) ==
        "test.json: $.jobs[0].processors: expected processor counts the application model was simulated on (1 to 8 "
        "on this platform), got 16");
  js[0].allowed = {2, 8};
  check_tabulated_counts(js[0]);
}

TEST_CASE("model: batch jobs round-trip through the workload writer with their defaults written") {
  nlohmann::json w = nlohmann::json::parse(R"({"schema": "hetperf.workload/1",
    "scheduler": {"policy": "reshape", "options": {"queue": "easy"}, "processors": 36},
    "jobs": [
      {"processors": 4, "run_time_s": 100, "requested_time_s": 150},
      {"type": "moldable", "processors": [8, 2], "app": {"kind": "table", "iteration_time_s": {"2": 10, "8": 4}}},
      {"type": "malleable", "processors": 2, "app": {"kind": "lu", "n": 1000, "r": 100, "variant": "pipelined"},
       "resize": {"topology": "nearly_square", "problem_size": 1000, "min_efficiency": 0.4,
                  "redistribution_cost": {"latency_s": 4.8, "bandwidth_bytes_per_s": 7.9e7}}},
      {"processors": 3, "app": {"kind": "integrate", "steps": 1000, "iterations": 2}}]})");
  Workload first = workload_from_json(w, "w.json");
  nlohmann::json out = to_json(first);
  CHECK(out["jobs"][0]["name"] == "job-1");
  CHECK(out["jobs"][2]["resize"]["data_bytes"] == 8e6);
  CHECK(out["jobs"][2]["app"]["window"] == 2);
  CHECK(out["jobs"][2]["resize"]["redistribution_cost"]["latency_s"] == 4.8);
  CHECK(out["scheduler"]["slowdown_threshold_s"] == 10);
  Workload back = workload_from_json(out, "w2.json");
  CHECK(to_json(back) == out);
  REQUIRE(back.scheduler);
  CHECK(back.scheduler->processors == 36);
  CHECK(back.jobs[1].allowed == std::vector<std::int64_t>{2, 8});
}

TEST_CASE("model: scheduler settings are read with their defaults and validated with the file and JSON path") {
  BatchSchedulerSpec o = scheduler(R"({"policy": "easy", "processors": 64, "slowdown_threshold_s": 60})");
  CHECK(o.policy == "easy");
  CHECK(o.processors == 64);
  CHECK(o.slowdown_threshold_s == 60);
  BatchSchedulerSpec d = scheduler("{}");
  CHECK(d.policy == "fcfs");
  CHECK(!d.processors);
  CHECK(d.slowdown_threshold_s == 10);
  CHECK(scheduler_error(R"({"policy": "sjf"})") ==
        "w.json: $.scheduler.policy: expected one of conservative, easy, fcfs, reshape, got the string \"sjf\"");
  CHECK_THAT(scheduler_error(R"({"policy": "reshape", "options": {"queue": "lifo"}})"),
             Catch::StartsWith("w.json: $.scheduler.options.queue: expected one of"));
  CHECK_THAT(scheduler_error(R"({"policy": "reshape", "options": {"min_improvement": 2}})"),
             Catch::StartsWith("w.json: $.scheduler.options.min_improvement: expected a number in [0, 1]"));
  CHECK_THAT(scheduler_error(R"({"options": []})"),
             Catch::StartsWith("w.json: $.scheduler.options: expected an object"));
  CHECK_THAT(scheduler_error(R"({"processors": 0})"),
             Catch::StartsWith("w.json: $.scheduler.processors: expected an integer in [1,"));
  CHECK(scheduler_error(R"({"slowdown_threshold_s": 0})") ==
        "w.json: $.scheduler.slowdown_threshold_s: expected a positive number, got 0");
  CHECK_THAT(scheduler_error(R"({"queue": "easy"})"), Catch::StartsWith("w.json: $.scheduler.queue: unknown field"));
  CHECK(scheduler_error("[]") == "w.json: $.scheduler: expected a scheduler object, got an array of 0");
}
