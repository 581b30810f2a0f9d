// Tests of the trace-calibrated operation models (model/src/app_model.cpp).
#include <set>

#include <catch2/catch.hpp>

#include "hetperf/model/app_model.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/statistics.hpp"

using namespace hetperf;

namespace {

OperationModel gemm_model() {
  OperationModel m;
  m.op = "gemm";
  m.features = operation_features("gemm");
  m.coefficients_s = {2e-11, 0, 0, 0, 1e-6};  // 2 m n k / (100 Gflop/s) + 1 us
  m.feature_min = {1e6, 0, 0, 0, 1};
  m.feature_max = {1e8, 1e9, 1e9, 1e9, 1};
  m.calls = 10;
  return m;
}

// app_models_from_json refuses `bad` with a message holding `text`.
void fails(const nlohmann::json& bad, const std::string& text) {
  try {
    app_models_from_json(JsonNode(bad, "p.json", "$.m"));
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(text));
  }
}

}  // namespace

TEST_CASE("model: an operation model's time is its form at the call's dimensions, never below zero") {
  OperationModel m = gemm_model();
  CHECK(m.time_s({"gemm", 100, 100, 100}) == Approx(2e-11 * 1e6 + 1e-6));
  CHECK(feature_values({"laswp", 1000, 128, 128}) == std::vector<double>{128000, 16384, 128, 1});
  CHECK(feature_values({"integrate", 0, 0, 0, 5e6}) == std::vector<double>{5e6});
  CHECK(feature_values({"unknown", 1, 1, 1}).empty());
  m.coefficients_s = {-1, 0, 0, 0, 0};
  CHECK(m.time_s({"gemm", 10, 10, 10}) == 0);
}

TEST_CASE("model: a call far outside an operation model's calibrated range is out of range") {
  OperationModel m = gemm_model();
  CHECK(m.in_range({"gemm", 100, 100, 100}));           // mnk 1e6: the smallest calibrated
  CHECK(m.in_range({"gemm", 300, 300, 300}));           // 2.7e7
  CHECK_FALSE(m.in_range({"gemm", 1000, 1000, 1000}));  // 1e9 > 2 x 1e8
  CHECK_FALSE(m.in_range({"gemm", 50, 50, 50}));        // 1.25e5 < 1e6 / 2
}

TEST_CASE("model: a residual is one of its band's equally likely values, chosen by the draw") {
  OperationModel m = gemm_model();
  CHECK(m.residual(1.0, 0.3) == 1.0);  // no residuals: no noise
  m.residuals = {{1e-3, {0.5, 1.0, 2.0, 4.0}}, {1.0, {0.9, 1.1}}};
  CHECK(m.residual(1e-4, 0.0) == 0.5);
  CHECK(m.residual(1e-4, 0.49) == 1.0);
  CHECK(m.residual(1e-4, 0.5) == 2.0);
  CHECK(m.residual(1e-4, 0.9999) == 4.0);
  CHECK(m.residual(0.5, 0.2) == 0.9);
  CHECK(m.residual(5.0, 0.7) == 1.1);  // beyond the last band: the last band
}

TEST_CASE("model: an operation has one model per computer, whatever the configuration") {
  AppModels a;
  a.operations = {gemm_model()};
  CHECK(a.find("gemm") == &a.operations[0]);
  CHECK(a.find("trsm") == nullptr);
}

TEST_CASE("model: operation models round-trip through JSON, and malformed ones are named") {
  AppModels a;
  a.operations = {gemm_model()};
  a.operations[0].residuals = {{1e-3, {0.9, 1.0, 1.2}}};
  a.operations[0].traces = {"t1.json"};
  a.runs = {{"t1.json", {{"gemm", 1.05}}}};
  const nlohmann::json j = to_json(a);
  AppModels b = app_models_from_json(JsonNode(j, "p.json", "$.computers[0].app_models"));
  REQUIRE(b.operations.size() == 1);
  CHECK(b.operations[0].coefficients_s == a.operations[0].coefficients_s);
  CHECK(b.operations[0].residuals[0].values == a.operations[0].residuals[0].values);
  CHECK(b.runs[0].factor.at("gemm") == 1.05);

  nlohmann::json bad = j;
  bad["operations"][0]["coefficients_s"] = {1, 2};
  fails(bad, "$.m.operations[0].coefficients_s");
  bad = j;
  bad["operations"][0]["op"] = "fft";
  fails(bad, "$.m.operations[0].op");
  bad = j;
  bad["operations"][0]["residuals"][0]["values"] = {1.2, 0.9};
  fails(bad, "non-decreasing");
  bad = j;
  bad["operations"].push_back(j["operations"][0]);
  fails(bad, "one model per operation");
  bad = j;
  bad["runs"][0]["factor"]["gemm"] = -1;
  fails(bad, "$.m.runs[0].factor.gemm");
  // The computer's concurrency speeds, local messages, calibrated range and model error round-trip.
  a.concurrency_speed = {1.0, 0.9};
  a.messages = MessageModel{2e-6, 1e-10, 8, 65536, 40, {"t1.json"}};
  a.calibrated = {{1, 2}, {{"lu", {1536, 2048}}}, {"basic"}, {}};
  a.model_error_log = {{"lu", {-0.02, 0, 0.03}}, {"integrate", {-0.1, 0.2}}};
  a.call_gap_s = 1.1e-6;
  const nlohmann::json k = to_json(a);
  const AppModels c = app_models_from_json(JsonNode(k, "p.json", "$.m"));
  CHECK(c.concurrency_speed == a.concurrency_speed);
  REQUIRE(c.messages);
  CHECK(c.messages->time_s(1000) == Approx(2e-6 + 1e-7));
  CHECK(c.calibrated.ranks == std::vector<int>{1, 2});
  CHECK(c.calibrated.sizes.at("lu") == std::pair<double, double>{1536, 2048});
  CHECK(c.calibrated.variants == std::vector<std::string>{"basic"});
  CHECK(c.model_error_log == a.model_error_log);
  CHECK(c.call_gap_s == a.call_gap_s);
  // A profile written before the deviations were kept per application: one array, for every
  // application, written back as it was read.
  nlohmann::json pooled = k;
  pooled["model_error_log"] = {-0.02, 0.03};
  const AppModels old = app_models_from_json(JsonNode(pooled, "p.json", "$.m"));
  CHECK(old.model_error_log == std::map<std::string, std::vector<double>>{{"", {-0.02, 0.03}}});
  CHECK(to_json(old)["model_error_log"] == pooled["model_error_log"]);
  bad = k;
  bad["model_error_log"]["mpi"] = {0.1};
  fails(bad, "$.m.model_error_log.mpi: unknown field");
  bad = k;
  bad["model_error_log"] = 0.1;
  fails(bad, "$.m.model_error_log: expected an object of the deviations per application");
  bad = k;
  bad["calibrated"]["sizes"]["lu"] = {2048, 1536};
  fails(bad, "$.m.calibrated.sizes.lu");
  bad = k;
  bad["concurrency_speed"] = {1.0, 0.0};
  fails(bad, "$.m.concurrency_speed[1]");
  bad = k;
  bad["call_gap_s"] = 2;
  fails(bad, "$.m.call_gap_s: expected seconds between two operations of a rank, at most 1");
  bad["call_gap_s"] = -1e-6;
  fails(bad, "$.m.call_gap_s");
}

TEST_CASE("model: a profile's models keyed by a configuration (rank count, whole-run ratios) are refused") {
  AppModels a;
  a.operations = {gemm_model()};
  nlohmann::json j = to_json(a);
  j["operations"][0]["ranks"] = 2;
  fails(j, "$.m.operations[0].ranks: expected no rank count");
  j = to_json(a);
  j["run_scales"] = nlohmann::json::array({{{"app", "lu"}, {"ranks", 2}, {"ratio", 1.3}}});
  fails(j, "$.m.run_scales: expected no \"run_scales\"");
  j = to_json(a);
  j["messages"] =
      nlohmann::json::array({{{"ranks", 2}, {"latency_s", 1e-6}, {"seconds_per_byte", 0}, {"messages", 4}}});
  fails(j, "$.m.messages");
}

TEST_CASE("model: operation noise is a fixed function of the seed and the sample") {
  AppModels a;
  a.runs = {{"a", {{"gemm", 0.9}}}, {"b", {{"gemm", 1.1}}}, {"c", {{"gemm", 1.3}}}};
  auto draws = [&](std::uint64_t seed, std::uint64_t sample) {
    OperationNoise n(seed, sample);
    std::vector<double> out = {n.run_factor(0, a, "gemm"), n.run_factor(0, a, "gemm"), n.uniform(),
                               n.run_factor(0, a, "trsm")};
    return out;
  };
  CHECK(draws(1, 0) == draws(1, 0));
  CHECK(draws(1, 0) != draws(1, 1));
  const auto d = draws(5, 3);
  CHECK(d[0] == d[1]);  // one run state per computer and sample
  CHECK(d[3] == 1.0);   // an operation the run had no calls of: neutral
  std::set<double> seen;
  for (std::uint64_t s = 0; s < 50; ++s) seen.insert(draws(7, s)[0]);
  CHECK(seen.size() == 3);  // every calibration run is drawn
}

TEST_CASE("model: an operation's run factor is drawn among the runs that made calls of it") {
  // Two LU runs and an integration run on one computer, as a calibration leaves them.
  AppModels a;
  a.runs = {{"lu-1", {{"gemm", 0.9}, {"trsm", 0.8}}, {2e-6}},
            {"integrate-1", {{"integrate", 1.5}}, {}},
            {"lu-2", {{"gemm", 1.1}, {"trsm", 1.2}}, {4e-6}}};
  std::set<double> gemm;
  std::set<std::pair<double, double>> pairs;
  for (std::uint64_t s = 0; s < 60; ++s) {
    OperationNoise n(11, s);
    const double g = n.run_factor(0, a, "gemm");
    gemm.insert(g);
    pairs.insert({g, n.run_factor(0, a, "trsm")});
    CHECK(n.run_factor(0, a, "integrate") == 1.5);  // never the LU runs' missing factor
    const double delay = n.message_delay(0, a);
    CHECK((delay == 2e-6 || delay == 4e-6));  // never the integration run's none
  }
  CHECK(gemm == std::set<double>{0.9, 1.1});
  // One run's operations stay in its state.
  CHECK(pairs == std::set<std::pair<double, double>>{{0.9, 0.8}, {1.1, 1.2}});
}
