// The UniMPP paper's validation example (examples/integration/) runs and its key output is checked: the
// worker mp fitted to 10 processes reproduces that point, and 20 processes are predicted within 5% of
// the measured averages of UniMPP paper Tables 3 and 7.
#include <catch2/catch.hpp>

#include "simulator/simulation_fixtures.hpp"

using namespace hetperf;

namespace {

double worker_mean(const std::string& platform, std::int64_t workers) {
  std::string dir = std::string(HETPERF_SOURCE_DIR) + "/examples/integration/";
  Profile profile = read_profile(dir + platform + ".json");
  Workload workload = read_workload(dir + "integration-" + platform + ".json");
  for (auto& p : workload.processes) {
    if (p.name == "worker") p.count = workers;
  }
  Prediction out = sim::simulate(profile, workload, "integration-" + platform + ".json");
  double sum = 0;
  std::size_t n = 0;
  for (const auto& r : out.processes) {
    if (r.name.rfind("worker", 0) == 0) sum += r.response_s, ++n;
  }
  REQUIRE(n == static_cast<std::size_t>(workers));
  return sum / static_cast<double>(n);
}

}  // namespace

TEST_CASE("simulator: the integration example on c1 and c2 reproduces UniMPP paper Table 3 at 10 and 20 processes") {
  CHECK(worker_mean("c1c2", 10) == Approx(151.40).epsilon(0.002));  // the fitted point
  CHECK(worker_mean("c1c2", 20) == Approx(301.05).epsilon(0.05));   // predicted
}

TEST_CASE("simulator: the integration example on c3 and c4 reproduces UniMPP paper Table 7 at 10 and 20 processes") {
  CHECK(worker_mean("c3c4", 10) == Approx(153.29).epsilon(0.002));
  CHECK(worker_mean("c3c4", 20) == Approx(306.63).epsilon(0.05));
}
