// Tests of the contention experiments' arithmetic and placement (calibrate/src/contention.cpp), with a
// runner that answers as a computer of known waiting share would.
#include <catch2/catch.hpp>

#include "hetperf/calibrate/contention.hpp"

using namespace hetperf::calibrate;

TEST_CASE("calibrate: the waiting share on one computer of several compares masters beside the workers with masters elsewhere") {
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
      return nlohmann::json{{"summary", {{"mean_response_s", together ? 0.1 * (1 + share) : 0.1}}}};
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
