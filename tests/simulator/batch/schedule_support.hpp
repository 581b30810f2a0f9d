// What the batch-scheduling tests share: a schedule of a JSON job list, and one job of a result.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "hetperf/model/json_node.hpp"
#include "hetperf/simulator/batch/schedule.hpp"

namespace hetperf::test {

inline sim::batch::ScheduleResult schedule(const std::string& policy, const sim::batch::Cluster& cluster,
                                           const std::string& jobs) {
  nlohmann::json j = nlohmann::json::parse(jobs);
  sim::batch::ScheduleOptions o;
  o.policy = policy;
  return sim::batch::simulate_schedule(cluster, batch_jobs_from_json(JsonNode(j, "test.json", "$.jobs")), o);
}

inline sim::batch::ScheduleResult schedule(const std::string& policy, std::int64_t processors,
                                           const std::string& jobs) {
  return schedule(policy, sim::batch::Cluster::homogeneous(processors), jobs);
}

inline const sim::batch::JobResult& job(const sim::batch::ScheduleResult& r, const std::string& name) {
  for (const auto& j : r.jobs) {
    if (j.name == name) return j;
  }
  FAIL("no job " << name);
  return r.jobs.front();
}

}  // namespace hetperf::test
