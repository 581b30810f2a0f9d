// examples/batch is a regression test: the ReSHAPE paper's workloads W1 and W2 keep the qualitative result of
// ReSHAPE paper section 4.2 (resizing shortens the long jobs and raises utilisation), and their shrinks
// free no more than the queue needs.
#include <catch2/catch.hpp>

#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/simulator/batch/schedule.hpp"

using namespace hetperf::sim::batch;

namespace {

struct Pair {
  ScheduleResult fixed;    // fcfs: static scheduling
  ScheduleResult dynamic;  // reshape
};

Pair run_example(const std::string& name) {
  const std::string dir = std::string(HETPERF_SOURCE_DIR) + "/examples/batch/";
  hetperf::Workload w = hetperf::read_workload(dir + name);
  REQUIRE(!w.jobs.empty());
  REQUIRE(w.scheduler);
  const auto& jobs = w.jobs;
  ScheduleOptions o = *w.scheduler;
  Cluster c = Cluster::from_profile(hetperf::read_profile(dir + "systemx-36.json"));
  REQUIRE(c.total() == 36);
  Pair p;
  o.policy = "fcfs";
  p.fixed = simulate_schedule(c, jobs, o);
  o.policy = "reshape";
  p.dynamic = simulate_schedule(c, jobs, o);
  return p;
}

// Every shrink made while a job waited frees no more than the jobs starting at that moment take: the
// remap scheduler frees what the queue needs (ReSHAPE paper section 3.1), not more.
void check_no_surplus_shrink(const ScheduleResult& r) {
  for (const auto& j : r.jobs) {
    for (std::size_t k = 1; k + 1 < j.allocation.size(); ++k) {
      const double t = j.allocation[k].time_s;
      const std::int64_t freed = j.allocation[k - 1].processors - j.allocation[k].processors;
      if (freed <= 0) continue;
      bool waiting = false;
      std::int64_t started = 0;
      for (const auto& o : r.jobs) {
        waiting |= o.submit_s <= t && o.start_s >= t && o.start_s > o.submit_s;
        if (o.start_s == t) started += o.processors;
      }
      if (!waiting) continue;
      INFO(j.name << " shrank by " << freed << " at " << t << "; jobs starting then took " << started);
      CHECK(freed <= started);
    }
  }
}

}  // namespace

TEST_CASE("simulator: example W1 under static scheduling reproduces the ReSHAPE paper's static turnaround times") {
  Pair p = run_example("w1.json");
  // The ReSHAPE paper Table 4, static column: nobody waits, so turnaround = 10 iterations at the initial size.
  const double expected[] = {4482.60, 3661.20, 147.47, 3266.40, 840.00};
  REQUIRE(p.fixed.jobs.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) CHECK(p.fixed.jobs[i].turnaround_s == Approx(expected[i]).epsilon(1e-4));
}

TEST_CASE("simulator: example resizing W1 shortens the long jobs and raises utilisation") {
  Pair p = run_example("w1.json");
  for (std::size_t i : {0, 1, 3}) {  // LU, MM, Jacobi
    CHECK(p.dynamic.jobs[i].turnaround_s < 0.9 * p.fixed.jobs[i].turnaround_s);
    CHECK(p.dynamic.jobs[i].resizes > 0);
  }
  CHECK(p.dynamic.summary.utilisation > p.fixed.summary.utilisation + 0.2);
}

TEST_CASE("simulator: example resizing W2 helps only a little, as in the seed") {
  Pair p = run_example("w2.json");
  double fixed = p.fixed.summary.mean_turnaround_s, dynamic = p.dynamic.summary.mean_turnaround_s;
  CHECK(dynamic < fixed);
  CHECK(dynamic > 0.8 * fixed);
  // A job shrank for a waiting one: some allocation went down before the job's end.
  bool shrank = false;
  for (const auto& j : p.dynamic.jobs) {
    for (std::size_t k = 1; k + 1 < j.allocation.size(); ++k)
      shrank |= j.allocation[k].processors < j.allocation[k - 1].processors;
  }
  CHECK(shrank);
  check_no_surplus_shrink(p.dynamic);
}

TEST_CASE("simulator: example W1's shrinks free only what the waiting jobs take") {
  check_no_surplus_shrink(run_example("w1.json").dynamic);
}
