// Tests of the contention experiments' arithmetic and placement (calibrate/src/contention.cpp), with a
// runner that answers as a computer of known waiting share would.
#include <catch2/catch.hpp>

#include "hetperf/calibrate/contention.hpp"

using namespace hetperf::calibrate;

TEST_CASE(
    "calibrate: the waiting share on one computer of several compares masters beside the workers with masters "
    "elsewhere") {
  ContentionOptions o;
  o.cores = 1;
  o.repeats = 3;
  o.integrate_program = "hetperf-integrate";
  o.scratch = "/tmp";
  // A worker alone takes 0.1 s; beside a waiting master it gets 1 / (1 + 0.6) of the core.
  std::vector<std::vector<std::string>> placements;
  auto run = [&](double share) {
    return [&placements, share](const std::vector<std::string>& hosts, const std::vector<std::string>& args) {
      placements.push_back(hosts);
      CHECK(args.front() == "hetperf-integrate");
      const bool together = hosts[0] == hosts[1];
      const double wall = together ? 0.1 * (1 + share) : 0.1;
      return nlohmann::json{
          {"summary", {{"mean_response_s", wall}, {"workers_compute_cpu_s", 0.1}, {"workers_compute_wall_s", wall}}}};
    };
  };
  const ContentionSummary s = measure_waiting_share_on(o, "b", "a", run(0.6));
  CHECK(s.figure == "waiting_share");
  CHECK(s.value == Approx(0.6));
  CHECK(s.record["computer"] == "b");
  // A warm-up, then alternately apart (master on a, worker on b) and together (both on b).
  REQUIRE(placements.size() == 7);
  CHECK(placements[0] == std::vector<std::string>{"a", "b"});
  CHECK(placements[1] == std::vector<std::string>{"a", "b"});
  CHECK(placements[2] == std::vector<std::string>{"b", "b"});
  CHECK(placements[3] == std::vector<std::string>{"a", "b"});
  // More than a fair share is clamped to a whole core (the model's range), the measured figure kept.
  placements.clear();
  const ContentionSummary greedy = measure_waiting_share_on(o, "b", "a", run(1.4));
  CHECK(greedy.value == 1.0);
  CHECK(greedy.record["unclamped"].get<double>() == Approx(1.4));
  // Two cores: two instances, their workers on the computer.
  o.cores = 2;
  placements.clear();
  measure_waiting_share_on(o, "b", "a", run(0.5));
  CHECK(placements[0] == std::vector<std::string>{"a", "b", "a", "b"});
  CHECK(placements[2] == std::vector<std::string>{"b", "b", "b", "b"});
}

TEST_CASE(
    "calibrate: the waiting share is read off the workers' wall / CPU time, not the responses of runs at different "
    "speeds") {
  ContentionOptions o;
  o.cores = 2;
  o.repeats = 3;
  o.integrate_program = "hetperf-integrate";
  // The computer runs at half speed during the runs with one instance, at full speed after: the
  // responses say 1.2 / 0.2 - 1 = 5 (clamped to 1), the workers' shares of a core say 0.5.
  // One run alone also shared its worker's core with something else (1.4): the least of them counts.
  int launches = 0;
  auto run = [&](int copies, int ranks, const std::vector<std::string>& args) {
    CHECK(copies == 1);
    CHECK(args.front() == "hetperf-integrate");
    ++launches;
    const bool one = ranks == 2;
    const double cpu = one ? 0.2 : 0.1;  // CPU seconds of the same work at half and at full speed
    // beside the waiting masters: 1 / (1 + 0.5) of a core
    const double wall = one ? cpu * (launches == 2 ? 1.4 : 1.0) : cpu * 1.5;
    return std::vector<nlohmann::json>{{{"summary",
                                         {{"mean_response_s", one ? 0.2 : 1.2},
                                          {"workers_compute_cpu_s", cpu * (one ? 1 : 2)},
                                          {"workers_compute_wall_s", wall * (one ? 1 : 2)}}}}};
  };
  const ContentionSummary s = measure_waiting_share(o, run);
  CHECK(launches == 6);
  CHECK(s.value == Approx(0.5));
  CHECK(s.record["from_response_times"].get<double>() == Approx(5));
  CHECK(s.record["alone_runs_wall_over_cpu"][1].get<double>() == Approx(1.4));
  CHECK(s.record["alone_wall_over_cpu"].get<double>() == Approx(1.0));
  CHECK(s.brief_report().find("takes 0.50 of a core") != std::string::npos);
  // A summary without the compute times (a hetperf-integrate of another version) is an environment error.
  auto old = [](int, int, const std::vector<std::string>&) {
    return std::vector<nlohmann::json>{{{"summary", {{"mean_response_s", 0.1}}}}};
  };
  CHECK_THROWS_WITH(measure_waiting_share(o, old), Catch::Contains("workers_compute_cpu_s"));
}
