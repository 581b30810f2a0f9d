// Hand-checked schedules of FCFS, EASY and conservative backfilling on small job sets.
#include <catch2/catch.hpp>

#include <sstream>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/simulator/batch/schedule.hpp"
#include "schedule_support.hpp"

using namespace hetperf::sim::batch;
using hetperf::test::job;
using hetperf::test::schedule;

namespace {

std::vector<JobSpec> parse_jobs(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  return hetperf::batch_jobs_from_json(hetperf::JsonNode(j, "test.json", "$.jobs"));
}

// 4 processors: A holds 2 until 10; B needs all 4; C is small and short.
const char* kShortBackfill = R"([
  {"name": "A", "submit_s": 0, "processors": 2, "run_time_s": 10},
  {"name": "B", "submit_s": 0, "processors": 4, "run_time_s": 5},
  {"name": "C", "submit_s": 1, "processors": 1, "run_time_s": 2}])";

}  // namespace

TEST_CASE("simulator: FCFS starts jobs strictly in submit order") {
  ScheduleResult r = schedule("fcfs", 4, kShortBackfill);
  CHECK(job(r, "A").start_s == 0);
  CHECK(job(r, "B").start_s == 10);
  CHECK(job(r, "B").end_s == 15);
  CHECK(job(r, "C").start_s == 15);
  CHECK(job(r, "C").wait_s == 14);
  CHECK(job(r, "C").turnaround_s == 16);
  // Bounded slowdown with τ = 10 s: C ran 2 s, so max(1, 16 / 10).
  CHECK(job(r, "C").bounded_slowdown == Approx(1.6));
  CHECK(r.summary.makespan_s == 17);
  // Busy processor-seconds: 2*10 + 4*5 + 1*2 = 42 of 4*17.
  CHECK(r.summary.utilisation == Approx(42.0 / 68.0));
}

TEST_CASE("simulator: EASY backfills a short job that ends before the head's reservation") {
  ScheduleResult r = schedule("easy", 4, kShortBackfill);
  CHECK(job(r, "C").start_s == 1);
  CHECK(job(r, "C").end_s == 3);
  CHECK(job(r, "B").start_s == 10);
}

TEST_CASE("simulator: EASY does not backfill a job that would delay the head of the queue") {
  ScheduleResult r = schedule("easy", 4, R"([
    {"name": "A", "submit_s": 0, "processors": 2, "run_time_s": 10},
    {"name": "B", "submit_s": 0, "processors": 4, "run_time_s": 5},
    {"name": "C", "submit_s": 1, "processors": 2, "run_time_s": 20}])");
  CHECK(job(r, "B").start_s == 10);  // C fits at t=1 but would hold 2 processors past t=10
  CHECK(job(r, "C").start_s == 15);
}

TEST_CASE("simulator: EASY backfills a long job onto the processors the head leaves spare") {
  ScheduleResult r = schedule("easy", 6, R"([
    {"name": "A", "submit_s": 0, "processors": 4, "run_time_s": 10},
    {"name": "B", "submit_s": 0, "processors": 4, "run_time_s": 5},
    {"name": "C", "submit_s": 1, "processors": 2, "run_time_s": 20}])");
  CHECK(job(r, "C").start_s == 1);  // the 2 "extra" processors at the shadow time 10
  CHECK(job(r, "B").start_s == 10);
}

TEST_CASE("simulator: EASY counts every processor released at the shadow time when several jobs end together") {
  // 10 processors: X and Y (4 each) both end at 10, 2 are idle. The head H needs 5: at the shadow
  // time 10 all 8 released processors are there, so 10 - 5 = 5 are spare and C (2 processors, long)
  // may start at once. Counting only the first release that lets H fit gave 1 spare, and C waited.
  const char* jobs = R"([
    {"name": "X", "submit_s": 0, "processors": 4, "run_time_s": 10},
    {"name": "Y", "submit_s": 0, "processors": 4, "run_time_s": 10},
    {"name": "H", "submit_s": 1, "processors": 5, "run_time_s": 5},
    {"name": "C", "submit_s": 2, "processors": 2, "run_time_s": 100}])";
  ScheduleResult r = schedule("easy", 10, jobs);
  CHECK(job(r, "C").start_s == 2);
  CHECK(job(r, "H").start_s == 10);  // not delayed by C
  // Conservative backfilling builds its availability profile from all releases at once: same answer.
  ScheduleResult c = schedule("conservative", 10, jobs);
  CHECK(job(c, "C").start_s == 2);
  CHECK(job(c, "H").start_s == 10);
}

TEST_CASE("simulator: EASY plans with requested times, not the run times it cannot know") {
  ScheduleResult r = schedule("easy", 4, R"([
    {"name": "A", "submit_s": 0, "processors": 2, "run_time_s": 10, "requested_time_s": 100},
    {"name": "B", "submit_s": 0, "processors": 4, "run_time_s": 5},
    {"name": "C", "submit_s": 1, "processors": 1, "run_time_s": 30, "requested_time_s": 50}])");
  CHECK(job(r, "C").start_s == 1);   // 1 + 50 <= 100, A's estimated end
  CHECK(job(r, "B").start_s == 31);  // A ended at 10, but C holds a processor until 31
  CHECK(job(r, "A").estimate_s == 100);
}

TEST_CASE("simulator: conservative backfilling protects every waiting job, EASY only the first") {
  const char* jobs = R"([
    {"name": "A", "submit_s": 0, "processors": 2, "run_time_s": 10},
    {"name": "B", "submit_s": 0, "processors": 3, "run_time_s": 10},
    {"name": "C", "submit_s": 0, "processors": 4, "run_time_s": 10},
    {"name": "D", "submit_s": 1, "processors": 1, "run_time_s": 100}])";
  ScheduleResult easy = schedule("easy", 4, jobs);
  CHECK(job(easy, "D").start_s == 1);  // within the head's spare processor
  CHECK(job(easy, "B").start_s == 10);
  CHECK(job(easy, "C").start_s == 101);  // delayed by D
  ScheduleResult cons = schedule("conservative", 4, jobs);
  CHECK(job(cons, "B").start_s == 10);
  CHECK(job(cons, "C").start_s == 20);
  CHECK(job(cons, "D").start_s == 30);  // the first hole that delays neither B nor C
}

TEST_CASE("simulator: conservative backfilling still fills holes that delay nobody") {
  ScheduleResult r = schedule("conservative", 4, kShortBackfill);
  CHECK(job(r, "C").start_s == 1);
  CHECK(job(r, "B").start_s == 10);
}

TEST_CASE("simulator: a moldable job starts with the largest allowed count that is idle") {
  ScheduleResult r = schedule("fcfs", 8, R"([
    {"name": "A", "submit_s": 0, "processors": 3, "run_time_s": 10},
    {"name": "M", "type": "moldable", "submit_s": 0, "processors": [2, 4, 8],
     "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6, "8": 4}}}])");
  CHECK(job(r, "M").processors == 4);
  CHECK(job(r, "M").end_s == 12);
}

TEST_CASE("simulator: a job larger than the cluster is listed as skipped, not dropped") {
  ScheduleResult r = schedule("easy", 4, R"([
    {"name": "A", "processors": 2, "run_time_s": 10},
    {"name": "huge", "processors": 5, "run_time_s": 10}])");
  REQUIRE(r.jobs.size() == 1);
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].name == "huge");
  CHECK(r.skipped[0].reason == "asks for 5 processors; the cluster has 4");
  CHECK(r.skipped[0].where == "test.json: $.jobs[1]");
  CHECK(to_json(r)["summary"]["skipped"] == 1);
}

TEST_CASE("simulator: a batch schedule is byte-identical across runs of the same inputs") {
  std::ostringstream jobs;
  jobs << "[";
  for (int i = 0; i < 60; ++i) {
    jobs << (i ? "," : "") << R"({"submit_s": )" << i * 3 % 17 << R"(, "processors": )" << 1 + i * 7 % 8
         << R"(, "run_time_s": )" << 5 + i * 13 % 29 << R"(, "requested_time_s": 40})";
  }
  jobs << "]";
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    std::string a = to_json(schedule(policy, 8, jobs.str())).dump();
    std::string b = to_json(schedule(policy, 8, jobs.str())).dump();
    CHECK(a == b);
  }
}

TEST_CASE("simulator: the batch policies registered are those a workload may name") {
  std::vector<std::string> registered, named;
  for (const auto& [name, description] : batch_policies()) registered.push_back(name);
  for (auto name : hetperf::kBatchPolicies) named.emplace_back(name);
  CHECK(registered == named);
}

TEST_CASE("simulator: a simulated schedule exported as SWF reads back with its waits and run times") {
  SwfTrace source = parse_swf(
      "; MaxProcs: 4\n"
      "1 0 -1 10 2 -1 -1 2 100 -1 1 7 3 -1 -1 -1 -1 -1\n"
      "2 0 -1 5 4 -1 -1 4 50 -1 1 8 3 -1 -1 -1 -1 -1\n",
      "in.swf");
  std::vector<SkippedJob> skipped;
  auto jobs = jobs_from_swf(source, skipped);
  ScheduleOptions o;
  o.policy = "fcfs";
  ScheduleResult r = simulate_schedule(Cluster::homogeneous(4), jobs, o);
  SwfTrace out = parse_swf(format_swf(to_swf(r, &source)), "out.swf");
  REQUIRE(out.records.size() == 2);
  CHECK(out.records[1].get(kWaitTime) == 10);
  CHECK(out.records[1].get(kRunTime) == 5);
  CHECK(out.records[1].get(kRequestedTime) == 50);
  CHECK(out.records[1].get(kUserId) == 8);  // copied from the source
  CHECK(out.max_procs == 4);
  CHECK(out.header.back() == " hetperf schedule: simulated with policy fcfs on 4 processors");
  // Jobs that did not come from a trace get a standard MaxProcs header.
  SwfTrace bare = parse_swf(format_swf(to_swf(r, nullptr)), "bare.swf");
  CHECK(bare.cluster_size() == 4);
  CHECK(bare.records[0].get(kUserId) == -1);
}

TEST_CASE("simulator: the schedule summary has the median, p90, p99 and max of wait, turnaround and bounded slowdown") {
  // EASY on kShortBackfill: A runs 0-10, C 1-3 (backfilled), B 10-15.
  ScheduleResult r = schedule("easy", 4, kShortBackfill);
  const ScheduleSummary& s = r.summary;
  // Waits 0, 0, 10; turnarounds 10, 2, 15; bounded slowdowns (τ = 10 s) 1, 1, 15 / 10.
  CHECK(s.wait_s.median == 0);
  CHECK(s.wait_s.p90 == 10);
  CHECK(s.wait_s.max == 10);
  CHECK(s.turnaround_s.median == 10);
  CHECK(s.turnaround_s.p90 == 15);
  CHECK(s.turnaround_s.p99 == 15);
  CHECK(s.turnaround_s.max == 15);
  CHECK(s.bounded_slowdown.median == 1);
  CHECK(s.bounded_slowdown.p99 == 1.5);
  CHECK(s.bounded_slowdown.max == s.max_bounded_slowdown);
  CHECK(s.slowdown_threshold_s == 10);
  const nlohmann::json j = to_json(r)["summary"];
  CHECK(j["median_turnaround_s"] == 10);
  CHECK(j["p90_wait_s"] == 10);
  CHECK(j["p99_bounded_slowdown"] == 1.5);
}

TEST_CASE("simulator: a schedule that keeps no rows streams every job once, in finish order, with the same summary") {
  const auto jobs = parse_jobs(kShortBackfill);
  ScheduleOptions o;
  o.policy = "easy";
  ScheduleResult kept = simulate_schedule(Cluster::homogeneous(4), jobs, o);
  ScheduleOutput output;
  output.keep_jobs = false;
  output.keep_utilisation = false;
  std::vector<JobResult> streamed;
  std::vector<std::size_t> indices;
  output.on_job = [&](const JobResult& r, std::size_t index) {
    streamed.push_back(r);
    indices.push_back(index);
  };
  ScheduleResult summary = simulate_schedule(Cluster::homogeneous(4), jobs, o, {}, output);
  CHECK(summary.jobs.empty());
  CHECK(summary.utilisation.empty());
  CHECK(to_json(summary)["summary"] == to_json(kept)["summary"]);
  REQUIRE(streamed.size() == 3);
  CHECK(streamed[0].name == "C");
  CHECK(streamed[1].name == "A");
  CHECK(streamed[2].name == "B");
  for (const auto& r : streamed) CHECK(r.end_s == job(kept, r.name).end_s);
  // Each index is the job's place among the kept rows.
  for (std::size_t k = 0; k < streamed.size(); ++k) CHECK(kept.jobs.at(indices[k]).name == streamed[k].name);
}
