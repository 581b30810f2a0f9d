// Each rule of the ReSHAPE remap scheduler (ReSHAPE paper section 3.1) and the node-removal policies on a
// constructed case whose schedule is worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "hetperf/model/json_node.hpp"
#include "hetperf/simulator/batch/schedule.hpp"
#include "schedule_support.hpp"

using namespace hetperf::sim::batch;
using hetperf::test::job;
using hetperf::test::schedule;

namespace {

std::vector<std::pair<double, std::int64_t>> steps(const JobResult& j) {
  std::vector<std::pair<double, std::int64_t>> out;
  for (const auto& a : j.allocation) out.emplace_back(a.time_s, a.processors);
  return out;
}

using Steps = std::vector<std::pair<double, std::int64_t>>;

}  // namespace

TEST_CASE("simulator: ReSHAPE: a job expands into idle processors while each expansion helps") {
  const char* jobs = R"([{"name": "M", "type": "malleable", "processors": 2, "resize": {"redistribution_s": 0},
      "app": {"kind": "table", "iterations": 4, "iteration_time_s": {"2": 10, "4": 6, "8": 5}}}])";
  // 0-10 on 2, 10-16 on 4 (helped: 6 < 10), 16-21 on 8 (helped: 5 < 6), 21-26 on 8 (no larger size).
  ScheduleResult r = schedule("reshape", 8, jobs);
  CHECK(steps(job(r, "M")) == Steps{{0, 2}, {10, 4}, {16, 8}, {26, 0}});
  CHECK(job(r, "M").resizes == 2);
  // Static scheduling keeps the initial allocation: 4 x 10 s.
  CHECK(schedule("fcfs", 8, jobs).jobs[0].end_s == 40);
}

TEST_CASE("simulator: ReSHAPE: an expansion that did not help is undone and marks the sweet spot") {
  ScheduleResult r = schedule("reshape", 8, R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"redistribution_s": 0},
      "app": {"kind": "table", "iterations": 5, "iteration_time_s": {"2": 10, "4": 6, "8": 7}}}])");
  // 0-10 on 2, 10-16 on 4, 16-23 on 8 (7 >= 6: back to 4, the sweet spot), 23-29 and 29-35 on 4.
  CHECK(steps(job(r, "M")) == Steps{{0, 2}, {10, 4}, {16, 8}, {23, 4}, {35, 0}});
}

TEST_CASE("simulator: ReSHAPE: a job shrinks to an earlier size that frees enough processors for a waiting job") {
  ScheduleResult r = schedule("reshape", 8, R"([
      {"name": "M", "type": "malleable", "processors": 2, "resize": {"redistribution_s": 0},
       "app": {"kind": "table", "iterations": 6, "iteration_time_s": {"2": 10, "4": 6, "8": 4}}},
      {"name": "R", "submit_s": 17, "processors": 4, "run_time_s": 5}])");
  // M: 0-10 on 2, 10-16 on 4, 16-20 on 8. R waits from 17; at 20 M gives up 4 (8 -> 4, an earlier
  // size) and R runs 20-25. M: 20-26 on 4; at 26 the queue is empty and 4 are idle: 26-30 and 30-34 on 8.
  CHECK(job(r, "R").start_s == 20);
  CHECK(job(r, "R").wait_s == 3);
  CHECK(steps(job(r, "M")) == Steps{{0, 2}, {10, 4}, {16, 8}, {20, 4}, {26, 8}, {34, 0}});
}

TEST_CASE("simulator: ReSHAPE: a job that cannot free enough shrinks to its starting size") {
  ScheduleResult r = schedule("reshape", 8, R"([
      {"name": "X", "processors": 2, "run_time_s": 100},
      {"name": "M", "type": "malleable", "processors": 2, "resize": {"redistribution_s": 0},
       "app": {"kind": "table", "iterations": 4, "iteration_time_s": {"2": 10, "4": 6, "6": 5}}},
      {"name": "W", "submit_s": 18, "processors": 8, "run_time_s": 5}])");
  // M: 0-10 on 2, 10-16 on 4, 16-21 on 6. W needs 8 (6 more than M could give): M goes back to 2.
  const auto& m = steps(job(r, "M"));
  REQUIRE(m.size() >= 4);
  CHECK(m[3] == std::pair<double, std::int64_t>{21, 2});
  CHECK(job(r, "W").start_s == 100);
}

TEST_CASE("simulator: ReSHAPE: no expansion while a job waits") {
  ScheduleResult r = schedule("reshape", 8, R"([
      {"name": "X", "processors": 3, "run_time_s": 30},
      {"name": "W", "submit_s": 1, "processors": 6, "run_time_s": 5},
      {"name": "M", "type": "malleable", "processors": 2, "resize": {"redistribution_s": 0},
       "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6}}}])");
  // At 10, 3 processors are idle but W waits for 6: M stays on 2.
  CHECK(steps(job(r, "M")) == Steps{{0, 2}, {20, 0}});
}

TEST_CASE("simulator: ReSHAPE: the redistribution cost follows the network model t = l + s/b") {
  Cluster c = Cluster::homogeneous(4);
  c.latency_s = 1e-3;
  c.bandwidth_bytes_per_s = 1e8;
  ScheduleResult r = schedule("reshape", c, R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"data_bytes": 1e9},
      "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6}}}])");
  // 2 -> 4: half of the 1e9 bytes changes owner, 2.5e8 per kept processor: 1e-3 + 2.5 s.
  const auto& it = job(r, "M").iterations;
  REQUIRE(it.size() == 2);
  CHECK(it[1].redistribution_s == Approx(2.501));
  CHECK(it[1].start_s == Approx(12.501));
  CHECK(job(r, "M").end_s == Approx(18.501));
}

TEST_CASE("simulator: ReSHAPE: a job's own redistribution cost model replaces the platform network") {
  Cluster c = Cluster::homogeneous(4);
  c.latency_s = 1e-3;
  c.bandwidth_bytes_per_s = 1e8;
  ScheduleResult r = schedule("reshape", c, R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"data_bytes": 1e9, "redistribution_cost": {"latency_s": 4, "bandwidth_bytes_per_s": 5e7}},
      "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6}}}])");
  // 2 -> 4: 2.5e8 bytes per kept processor at 5e7 B/s after 4 s: 9 s (the platform would say 2.501).
  const auto& it = job(r, "M").iterations;
  REQUIRE(it.size() == 2);
  CHECK(it[1].redistribution_s == Approx(9));
  // And it needs no platform network at all.
  r = schedule("reshape", 4, R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"data_bytes": 1e9, "redistribution_cost": {"latency_s": 4, "bandwidth_bytes_per_s": 5e7}},
      "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6}}}])");
  CHECK(job(r, "M").end_s == Approx(25));
}

TEST_CASE("simulator: ReSHAPE: data to redistribute without a network model is an input error naming the job") {
  CHECK_THROWS_WITH(schedule("reshape", 4, R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"data_bytes": 1e9}, "app": {"kind": "table", "iteration_time_s": {"2": 10, "4": 6}}}])"),
                    Catch::StartsWith("test.json: $.jobs[0].resize.data_bytes: needs a network model"));
}

TEST_CASE("simulator: ReSHAPE: nearly-square topologies grow the smaller side by a divisor of the problem size") {
  auto configs = [](std::int64_t n, std::int64_t p0) {
    JobSpec j;
    j.kind = JobKind::kMalleable;
    j.processors = p0;
    j.app = AppModel{};
    for (std::int64_t p = 1; p <= 50; ++p) j.app->iteration_time_s[p] = 1;
    j.resize.topology = Topology::kNearlySquare;
    j.resize.problem_size = n;
    return resize_configurations(j);
  };
  // The ReSHAPE paper Table 2.
  CHECK(configs(21000, 4) == std::vector<std::int64_t>{4, 6, 9, 12, 16, 20, 25, 30, 36, 42, 49});
  CHECK(configs(14000, 4) == std::vector<std::int64_t>{4, 8, 16, 20, 25, 35, 49});
  CHECK(configs(12000, 2) == std::vector<std::int64_t>{2, 4, 6, 9, 12, 16, 20, 25, 30, 36, 48});
}

TEST_CASE("simulator: ReSHAPE: counts that must divide the problem size") {
  JobSpec j;
  j.kind = JobKind::kMalleable;
  j.processors = 4;
  j.app = AppModel{};
  for (std::int64_t p : {3, 4, 5, 6, 8, 10, 12, 16}) j.app->iteration_time_s[p] = 1;
  j.resize.topology = Topology::kDivides;
  j.resize.problem_size = 8000;
  CHECK(resize_configurations(j) == std::vector<std::int64_t>{4, 5, 8, 10, 16});
}

TEST_CASE("simulator: node removal: K processors leave after iteration I, under any policy") {
  ScheduleResult r = schedule("fcfs", 4, R"([{"name": "M", "type": "malleable", "processors": 4,
      "resize": {"redistribution_s": 1, "remove": {"after_iteration": 2, "processors": 2}},
      "app": {"kind": "table", "iterations": 4, "iteration_time_s": {"2": 8, "4": 5}}}])");
  // 0-10 on 4 (two iterations), 1 s to redistribute (processors held), 11-27 on 2.
  CHECK(steps(job(r, "M")) == Steps{{0, 4}, {11, 2}, {27, 0}});
}

TEST_CASE("simulator: node removal: an iteration below the efficiency threshold shrinks the job back") {
  ScheduleResult r = schedule("reshape", 4, R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"redistribution_s": 0, "min_efficiency": 0.8},
      "app": {"kind": "table", "iterations": 4, "iteration_time_s": {"2": 10, "4": 7}}}])");
  // On 4 the efficiency is 10*2 / (7*4) = 0.71 < 0.8 although the iteration time improved.
  CHECK(steps(job(r, "M")) == Steps{{0, 2}, {10, 4}, {17, 2}, {37, 0}});
}

TEST_CASE("simulator: on a heterogeneous cluster a job runs at the speed of its slowest processor") {
  hetperf::Profile p;
  hetperf::Computer fast, slow;
  fast.name = "fast";
  fast.cores = 2;
  fast.mips = 2000;
  slow.name = "slow";
  slow.cores = 2;
  slow.mips = 1000;
  p.computers = {slow, fast};
  Cluster c = Cluster::from_profile(p);
  REQUIRE(c.groups.front().name == "fast");
  ScheduleResult r = schedule("fcfs", c, R"([
      {"name": "A", "processors": 2, "run_time_s": 10},
      {"name": "B", "processors": 2, "run_time_s": 10}])");
  CHECK(job(r, "A").end_s == 10);  // the two fast cores
  CHECK(job(r, "B").end_s == 20);  // the slow computer at half speed
  CHECK(job(r, "B").slowest_speed == 0.5);
}

TEST_CASE("simulator: ReSHAPE: with EASY starts, a short job backfills beside a malleable job") {
  nlohmann::json jobs = nlohmann::json::parse(R"([
      {"name": "M", "type": "malleable", "processors": 4, "resize": {"redistribution_s": 0},
       "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"4": 10, "8": 6}}},
      {"name": "W", "submit_s": 1, "processors": 8, "run_time_s": 5},
      {"name": "S", "submit_s": 2, "processors": 2, "run_time_s": 3}])");
  ScheduleOptions o;
  o.policy = "reshape";
  o.policy_options = {{"queue", "easy"}};
  ScheduleResult r = simulate_schedule(Cluster::homogeneous(8),
                                       hetperf::batch_jobs_from_json(hetperf::JsonNode(jobs, "t.json", "$.jobs")), o);
  // W waits for M (estimate 20 s: shadow time 20); S ends at 5 <= 20, so it backfills at 2.
  CHECK(job(r, "S").start_s == 2);
  // At M's resize point (10) W waits: no expansion; M ends at 20 and W starts.
  CHECK(steps(job(r, "M")) == Steps{{0, 4}, {20, 0}});
  CHECK(job(r, "W").start_s == 20);
  o.policy_options = {{"queue", "fcfs"}};
  r = simulate_schedule(Cluster::homogeneous(8),
                        hetperf::batch_jobs_from_json(hetperf::JsonNode(jobs, "t.json", "$.jobs")), o);
  CHECK(job(r, "S").start_s == 25);
}

TEST_CASE("simulator: ReSHAPE: a shrink counts the processors another job is already releasing") {
  // 16 processors. A (from 0) and B (from 1) start on 4 and expand to 8 at their first resize points
  // (20 and 21, 5 s of redistribution each). Q (rigid, 4) arrives at 30 and waits. At 35 A shrinks
  // back to 4 for Q and holds its 8 until its data has left (40). At 36 B's resize point sees Q still
  // waiting, but the 4 processors A is releasing are enough for Q: B stays on 8. Before, B shrank too
  // and 4 processors sat idle from 41.
  const char* jobs = R"([
    {"name": "A", "type": "malleable", "processors": 4, "resize": {"redistribution_s": 5},
     "app": {"kind": "table", "iterations": 6, "iteration_time_s": {"4": 20, "8": 10}}},
    {"name": "B", "submit_s": 1, "type": "malleable", "processors": 4, "resize": {"redistribution_s": 5},
     "app": {"kind": "table", "iterations": 6, "iteration_time_s": {"4": 20, "8": 10}}},
    {"name": "Q", "submit_s": 30, "processors": 4, "run_time_s": 20}])";
  ScheduleResult r = schedule("reshape", 16, jobs);
  // A: on 4 from 40 (iterations 3 and 4 end at 60 and 80; at 60 Q still holds its 4: its end was
  // scheduled after A's iteration), expands again at 80 once B has left, 5 s of redistribution, two
  // iterations of 10 s: done at 105.
  CHECK(steps(job(r, "A")) == Steps{{0, 4}, {20, 8}, {40, 4}, {80, 8}, {105, 0}});
  CHECK(job(r, "Q").start_s == 40);
  // B: 1-21 on 4, redistribution 21-26, then five iterations of 10 s on 8: done at 76.
  CHECK(steps(job(r, "B")) == Steps{{1, 4}, {21, 8}, {76, 0}});
  CHECK(job(r, "B").resizes == 1);
}

TEST_CASE("simulator: ReSHAPE: a malleable job that can never resize is run with a warning naming it") {
  // 6 = 2 x 3 and 3 does not divide 1000: no grid to grow from .
  auto r = schedule("reshape", 16, R"([{"name": "stuck", "type": "malleable", "processors": 6,
      "resize": {"topology": "nearly_square", "problem_size": 1000},
      "app": {"kind": "table", "iteration_time_s": {"6": 10, "8": 8, "10": 7}}},
     {"name": "free", "type": "malleable", "processors": 4,
      "app": {"kind": "table", "iteration_time_s": {"4": 10, "8": 6}}}])");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "test.json: $.jobs[0]: malleable job 'stuck' can never be resized: its start on 6 processors is not "
        "a grid whose sides divide problem_size 1000, or no larger grid fits");
  CHECK(job(r, "stuck").end_s > 0);
  CHECK(to_json(r)["warnings"].size() == 1);
}

TEST_CASE("simulator: ReSHAPE: a job that cannot free enough leaves the shrink to one that can and checks in first") {
  // The ReSHAPE paper W2's pattern, 36 processors. L (16, 100 s per iteration; 90 s on 20) and J (10, 60 s;
  // 45 s on 16) expand into idle processors: J 10 -> 16 at 60, L 16 -> 20 at 100; all 36 busy. Q
  // (rigid, 6) arrives at 160. At L's resize point (190) L could free only 4 (20 -> 16), but J, which
  // checks in at 195 before L's next point (280), can free 6 (16 -> 10): L keeps 20. At 195 J shrinks
  // to 10 and Q starts at once. Shrinking L too (the paper's literal rule) would free 10 for a need of
  // 6, leaving 4 idle.
  ScheduleResult r = schedule("reshape", 36, R"([
      {"name": "L", "type": "malleable", "processors": 16, "resize": {"redistribution_s": 0},
       "app": {"kind": "table", "iterations": 10, "iteration_time_s": {"16": 100, "20": 90}}},
      {"name": "J", "type": "malleable", "processors": 10, "resize": {"redistribution_s": 0},
       "app": {"kind": "table", "iterations": 20, "iteration_time_s": {"10": 60, "16": 45}}},
      {"name": "Q", "submit_s": 160, "processors": 6, "run_time_s": 50}])");
  CHECK(job(r, "Q").start_s == 195);
  const Steps l = steps(job(r, "L"));
  REQUIRE(l.size() >= 2);
  CHECK(l[0] == std::pair<double, std::int64_t>{0, 16});
  CHECK(l[1] == std::pair<double, std::int64_t>{100, 20});
  // L never goes below 20 while Q runs (195-245).
  for (const auto& [t, p] : l) CHECK((t <= 100 || t >= 245 || p >= 20));
  const Steps jj = steps(job(r, "J"));
  REQUIRE(jj.size() >= 3);
  CHECK(jj[1] == std::pair<double, std::int64_t>{60, 16});
  CHECK(jj[2] == std::pair<double, std::int64_t>{195, 10});
  // No processor idles while Q waits or runs: 20 + 10 + 6 = 36 from 195.
  bool idle_with_queue = false;
  for (const auto& u : r.utilisation) idle_with_queue |= u.time_s >= 195 && u.time_s < 245 && u.busy < 36;
  CHECK(!idle_with_queue);
}

TEST_CASE("simulator: ReSHAPE: a profile's fitted redistribution model prices resizes instead of its network line") {
  hetperf::Profile p;
  hetperf::Computer c;
  c.name = "n";
  c.cores = 4;
  c.mips = 1000;
  p.computers = {c};
  p.network.latency_s = 1e-6;
  p.network.bandwidth_bytes_per_s = 1e10;
  Cluster plain = Cluster::from_profile(p);
  CHECK(plain.bandwidth_bytes_per_s == 1e10);
  p.network.redistribution = hetperf::RedistributionModel{2, 5e7, {}};
  ScheduleResult r =
      schedule("reshape", Cluster::from_profile(p), R"([{"name": "M", "type": "malleable", "processors": 2,
      "resize": {"data_bytes": 1e9}, "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6}}}])");
  // 2 -> 4: 2.5e8 bytes per kept processor at 5e7 B/s after 2 s: 7 s.
  REQUIRE(job(r, "M").iterations.size() == 2);
  CHECK(job(r, "M").iterations[1].redistribution_s == Approx(7));
}
