// Tests of the placement policies and their registry (simulator/src/placement.cpp).
#include <catch2/catch.hpp>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/placement.hpp"
#include "simulator/simulation_fixtures.hpp"

using namespace hetperf;
using nlohmann::json;

namespace {

std::vector<Computer> computers() {
  // A: 1000 MIPS x 1 core, B: 2000 x 1, C: 1000 x 4. Memory 1000 + 1000 MB each.
  return test::profile(
             json::array({test::computer("A", 1000), test::computer("B", 2000), test::computer("C", 1000, 4)}))
      .computers;
}

std::size_t place(const std::string& policy, const std::vector<sim::ComputerLoad>& load, double memory_mb = 0) {
  Rng rng(1);
  auto p = sim::make_placement(policy, json::object());
  return p->place(computers(), load, {0, memory_mb, 1000}, rng);
}

}  // namespace

TEST_CASE("simulator: round robin places processes on the computers in profile order, in turn") {
  auto p = sim::make_placement("round_robin", json::object());
  Rng rng(1);
  std::vector<sim::ComputerLoad> load(3);
  std::vector<std::size_t> chosen;
  for (int k = 0; k < 7; ++k) chosen.push_back(p->place(computers(), load, {}, rng));
  CHECK(chosen == std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 0});
}

TEST_CASE("simulator: random placement is uniform over computers and repeatable for a seed") {
  auto p = sim::make_placement("random", json::object());
  std::vector<sim::ComputerLoad> load(3);
  Rng rng(99), again(99);
  std::vector<int> counts(3, 0);
  std::vector<std::size_t> first, second;
  const std::vector<Computer> cs = computers();  // built once: a profile per call took 47 s under the sanitizers
  for (int k = 0; k < 30000; ++k) first.push_back(p->place(cs, load, {}, rng));
  for (int k = 0; k < 30000; ++k) second.push_back(p->place(cs, load, {}, again));
  for (std::size_t c : first) ++counts.at(c);
  CHECK(first == second);
  for (int c : counts) CHECK(c == Approx(10000).epsilon(0.03));
}

TEST_CASE("simulator: least loaded picks the fewest resident processes per core, ties to the first") {
  std::vector<sim::ComputerLoad> load(3);
  CHECK(place("least_loaded", load) == 0);
  load[0].resident = 1;
  load[1].resident = 1;
  load[2].resident = 3;  // 3 on 4 cores: 0.75 per core
  CHECK(place("least_loaded", load) == 2);
  load[2].resident = 4;
  CHECK(place("least_loaded", load) == 0);
}

TEST_CASE("simulator: least loaded follows resident-count changes reported to it and agrees with a full scan") {
  // 37 computers with 1 to 4 cores; random arrivals and departures reported through resident_changed.
  nlohmann::json list = nlohmann::json::array();
  for (int i = 0; i < 37; ++i) {
    std::string name = "c";
    name += std::to_string(i);  // (not "c" + std::to_string(i): GCC 12 warns falsely with -Wrestrict)
    list.push_back(test::computer(name, 1000, 1 + i % 4));
  }
  auto cs = test::profile(list).computers;
  auto p = sim::make_placement("least_loaded", json::object());
  std::vector<sim::ComputerLoad> load(cs.size());
  Rng rng(11);
  for (int step = 0; step < 5000; ++step) {
    std::size_t chosen = p->place(cs, load, {}, rng);
    std::size_t expected = 0;
    for (std::size_t i = 1; i < cs.size(); ++i) {
      if (load[i].resident * static_cast<std::size_t>(cs[expected].cores) <
          load[expected].resident * static_cast<std::size_t>(cs[i].cores))
        expected = i;
    }
    REQUIRE(chosen == expected);
    ++load[chosen].resident;
    p->resident_changed(cs, load, chosen);
    std::size_t leave = static_cast<std::size_t>(rng.uniform01() * static_cast<double>(cs.size()));
    if (load[leave].resident > 0 && rng.uniform01() < 0.45) {
      --load[leave].resident;
      p->resident_changed(cs, load, leave);
    }
  }
}

TEST_CASE("simulator: fastest picks the largest processing capacity the new process would get") {
  std::vector<sim::ComputerLoad> load(3);
  CHECK(place("fastest", load) == 1);  // B: 2000 MIPS alone
  load[1].computing = 2;               // B would give 2000 / 3 = 667 MIPS
  CHECK(place("fastest", load) == 0);  // A and C both 1000: the first
  load[0].computing = 1;               // A would give 500; C still a full core
  CHECK(place("fastest", load) == 2);
}

TEST_CASE("simulator: memory aware avoids memory slowdown and computers the process would overfill") {
  auto profile = test::profile(json::array({test::computer("A", 1000), test::computer("B", 1000)}));
  profile.computers[0].slowdown = unimpp::SlowdownFunction{1000, {0.001, 0}, std::nullopt};
  auto p = sim::make_placement("memory_aware", json::object());
  Rng rng(1);
  std::vector<sim::ComputerLoad> load(2);
  load[1].occupied_mb = 500;  // B has no slowdown function: α = 0 even with memory held
  CHECK(p->place(profile.computers, load, {0, 100, 1000}, rng) == 1);
  load[1].occupied_mb = 1950;  // B would pass main plus virtual memory with 100 MB more
  CHECK(p->place(profile.computers, load, {0, 100, 1000}, rng) == 0);
}

TEST_CASE("simulator: an unknown policy name is an input error listing the known ones") {
  try {
    sim::make_placement("fastest_first", json::object());
    FAIL("no error");
  } catch (const InputError& e) {
    std::string m = e.what();
    CHECK(m.find("fastest_first") != std::string::npos);
    CHECK(m.find("round_robin") != std::string::npos);
    CHECK(m.find("memory_aware") != std::string::npos);
  }
  auto names = sim::placement_policies();
  CHECK(names.size() >= 5);
}

TEST_CASE("simulator: a policy registered by name is available to workloads") {
  // A policy that always picks the last computer (the pattern docs/policies.md describes).
  struct Last final : sim::PlacementPolicy {
    std::size_t place(const std::vector<Computer>& c, const std::vector<sim::ComputerLoad>&,
                      const sim::PlacementRequest&, Rng&) override {
      return c.size() - 1;
    }
  };
  sim::register_placement("test_last", "always the last computer",
                          [](const json&) { return std::make_unique<Last>(); });
  auto profile = test::profile(json::array({test::computer("A"), test::computer("B")}));
  auto out = test::run(
      profile, test::workload(json::array({{{"name", "w"}, {"count", 3}, {"mi", 10}}}), {{"placement", "test_last"}}));
  for (const auto& r : out.processes) CHECK(r.computer == "B");
}
