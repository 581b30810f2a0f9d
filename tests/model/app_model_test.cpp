// Tests of the trace-calibrated operation models (model/src/app_model.cpp).
#include <set>

#include <catch2/catch.hpp>

#include "hetperf/model/app_model.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/statistics.hpp"

using namespace hetperf;

namespace {

OperationModel gemm_model(int ranks) {
  OperationModel m;
  m.op = "gemm";
  m.ranks = ranks;
  m.features = operation_features("gemm");
  m.coefficients_s = {2e-11, 0, 0, 0, 1e-6};  // 2 m n k / (100 Gflop/s) + 1 us
  m.feature_min = {1e6, 0, 0, 0, 1};
  m.feature_max = {1e8, 1e9, 1e9, 1e9, 1};
  m.calls = 10;
  return m;
}

}  // namespace

TEST_CASE("model: an operation model's time is its form at the call's dimensions, never below zero") {
  OperationModel m = gemm_model(1);
  CHECK(m.time_s({"gemm", 100, 100, 100}) == Approx(2e-11 * 1e6 + 1e-6));
  CHECK(feature_values({"laswp", 1000, 128, 128}) == std::vector<double>{128000, 16384, 128, 1});
  CHECK(feature_values({"integrate", 0, 0, 0, 5e6}) == std::vector<double>{5e6});
  CHECK(feature_values({"unknown", 1, 1, 1}).empty());
  m.coefficients_s = {-1, 0, 0, 0, 0};
  CHECK(m.time_s({"gemm", 10, 10, 10}) == 0);
}

TEST_CASE("model: a call far outside an operation model's calibrated range is out of range") {
  OperationModel m = gemm_model(1);
  CHECK(m.in_range({"gemm", 100, 100, 100}));     // mnk 1e6: the smallest calibrated
  CHECK(m.in_range({"gemm", 300, 300, 300}));     // 2.7e7
  CHECK_FALSE(m.in_range({"gemm", 1000, 1000, 1000}));  // 1e9 > 2 x 1e8
  CHECK_FALSE(m.in_range({"gemm", 50, 50, 50}));  // 1.25e5 < 1e6 / 2
}

TEST_CASE("model: a residual is one of its band's equally likely values, chosen by the draw") {
  OperationModel m = gemm_model(1);
  CHECK(m.residual(1.0, 0.3) == 1.0);  // no residuals: no noise
  m.residuals = {{1e-3, {0.5, 1.0, 2.0, 4.0}}, {1.0, {0.9, 1.1}}};
  CHECK(m.residual(1e-4, 0.0) == 0.5);
  CHECK(m.residual(1e-4, 0.49) == 1.0);
  CHECK(m.residual(1e-4, 0.5) == 2.0);
  CHECK(m.residual(1e-4, 0.9999) == 4.0);
  CHECK(m.residual(0.5, 0.2) == 0.9);
  CHECK(m.residual(5.0, 0.7) == 1.1);  // beyond the last band: the last band
}

TEST_CASE("model: the model of an operation is the one of its rank count, else the nearest below, else above") {
  AppModels a;
  a.operations = {gemm_model(1), gemm_model(2), gemm_model(8)};
  CHECK(a.find("gemm", 2)->ranks == 2);
  CHECK(a.find("gemm", 4)->ranks == 2);
  CHECK(a.find("gemm", 16)->ranks == 8);
  a.operations = {gemm_model(4)};
  CHECK(a.find("gemm", 1)->ranks == 4);
  CHECK(a.find("trsm", 1) == nullptr);
}

TEST_CASE("model: operation models round-trip through JSON, and malformed ones are named") {
  AppModels a;
  a.operations = {gemm_model(2)};
  a.operations[0].residuals = {{1e-3, {0.9, 1.0, 1.2}}};
  a.operations[0].traces = {"t1.json"};
  a.runs = {{"t1.json", {{"gemm", 1.05}}}};
  const nlohmann::json j = to_json(a);
  AppModels b = app_models_from_json(JsonNode(j, "p.json", "$.computers[0].app_models"));
  REQUIRE(b.operations.size() == 1);
  CHECK(b.operations[0].coefficients_s == a.operations[0].coefficients_s);
  CHECK(b.operations[0].residuals[0].values == a.operations[0].residuals[0].values);
  CHECK(b.runs[0].factor.at("gemm") == 1.05);

  auto fails = [](nlohmann::json bad, const std::string& text) {
    try {
      app_models_from_json(JsonNode(bad, "p.json", "$.m"));
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(text));
    }
  };
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
  fails(bad, "one model per operation and rank count");
  bad = j;
  bad["runs"][0]["factor"]["gemm"] = -1;
  fails(bad, "$.m.runs[0].factor.gemm");
  // A whole-run ratio keeps the point prediction it is over; a negative one is named.
  a.run_scales = {{"integrate", 8, 1.3, "t2.json", 1e6, "m65536-d1048576", 0.25}, {"lu", 1, 1.1, "t3.json"}};
  const nlohmann::json k = to_json(a);
  CHECK_FALSE(k["run_scales"][1].contains("predicted_s"));  // not recorded: not written
  const AppModels c = app_models_from_json(JsonNode(k, "p.json", "$.m"));
  CHECK(c.run_scales[0].predicted_s == 0.25);
  CHECK(c.run_scales[1].predicted_s == 0);
  bad = k;
  bad["run_scales"][0]["predicted_s"] = -1;
  fails(bad, "$.m.run_scales[0].predicted_s");
}

TEST_CASE("model: operation noise is a fixed function of the seed and the sample") {
  AppModels a;
  a.runs = {{"a", {{"gemm", 0.9}}}, {"b", {{"gemm", 1.1}}}, {"c", {{"gemm", 1.3}}}};
  auto draws = [&](std::uint64_t seed, std::uint64_t sample) {
    OperationNoise n(seed, sample);
    std::vector<double> out = {n.run_factor(0, a, "gemm"), n.run_factor(0, a, "gemm"), n.uniform(), n.run_factor(0, a, "trsm")};
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

TEST_CASE("model: whole-run ratios are centred on their rank count and spread as every run of the app") {
  AppModels a;
  a.run_scales = {{"lu", 1, 1.0, "a"}, {"lu", 1, 1.1, "b"}, {"lu", 1, 1.2, "c"},
                  {"lu", 2, 2.0, "d"}, {"lu", 2, 3.0, "e"}, {"integrate", 2, 0.5, "f"}};
  // One rank: median 1.1; spreads 1/1.1, 1, 1.2/1.1 and 2/2.5, 1, 3/2.5.
  const auto one = a.scales("lu", 1);
  REQUIRE(one.size() == 5);
  CHECK(one.front() == Approx(1.1 * 0.8));
  CHECK(one.back() == Approx(1.1 * 1.2));
  CHECK(a.scales("lu", 4).size() == 5);  // beyond the calibrated counts: the nearest, 2 (median 2.5)
  CHECK(a.scales("lu", 4)[2] == Approx(2.5));
  CHECK(a.scales("integrate", 1) == std::vector<double>{0.5});  // below them: the smallest
  CHECK(a.scales("other", 1).empty());
  // Between two calibrated counts, the level moves on a line in log(ranks): 8 is halfway (in log)
  // from 2 to 32, so halfway from 2.5 to 4.5.
  a.run_scales.push_back({"lu", 32, 4.5, "g"});
  const auto eight = a.scales("lu", 8);
  REQUIRE(eight.size() == 6);
  CHECK(median(eight) == Approx(3.5));
  CHECK(a.scales("lu", 32)[3] == Approx(4.5));
}

TEST_CASE("model: whole-run ratios move with the problem size, on a line in 1/size between calibrated sizes") {
  AppModels a;
  // One rank at n = 1000 (level 1.2) and n = 4000 (level 1.0), three runs each; two ranks at n = 1000
  // only (level 2).
  a.run_scales = {{"lu", 1, 1.2, "a", 1000}, {"lu", 1, 1.2, "b", 1000}, {"lu", 1, 1.2, "b2", 1000},
                  {"lu", 1, 1.0, "c", 4000}, {"lu", 1, 1.0, "d", 4000}, {"lu", 1, 1.0, "d2", 4000},
                  {"lu", 2, 2.0, "e", 1000}};
  // 1/2000 is two thirds of the way from 1/1000 to 1/4000: 1.2 − (2/3)·0.2. A ratio 1 + c/size (a
  // time missed per run that does not grow with the work) is on that line exactly.
  CHECK(median(a.scales("lu", 1, 2000)) == Approx(1.2 - 0.2 * 2 / 3));
  CHECK(median(a.scales("lu", 1, 1000)) == Approx(1.2));
  CHECK(median(a.scales("lu", 1, 500)) == Approx(1.2));    // below the calibrated sizes: the smallest's
  CHECK(median(a.scales("lu", 1, 8000)) == Approx(1.0));   // above them: the largest's
  CHECK(median(a.scales("lu", 2, 4000)) == Approx(2.0));   // a rank count with one size: its level anywhere
  // Between the rank counts, the line in log(ranks) through each count's level at that size: 1.1 on
  // one rank and 3 on four at n = 1600 (halfway in 1/size), so (1.1 + 3) / 2 on two; the 2-rank
  // runs are removed first.
  a.run_scales.pop_back();
  a.run_scales.push_back({"lu", 4, 3.0, "f", 1000});
  CHECK(median(a.scales("lu", 1, 1600)) == Approx(1.1));
  CHECK(median(a.scales("lu", 2, 1600)) == Approx((1.1 + 3) / 2));
  // A ratio of the form 1 + c/size, calibrated at two sizes, is reproduced between them.
  AppModels c;
  for (int k = 0; k < 3; ++k) {
    c.run_scales.push_back({"integrate", 8, 1 + 0.7 / 1, "a", 1e6});
    c.run_scales.push_back({"integrate", 8, 1 + 0.7 / 8, "b", 8e6});
  }
  CHECK(median(c.scales("integrate", 8, 4e6)) == Approx(1 + 0.7 / 4));
  // A variant with calibration runs of its own uses them alone; one without, every run of the app.
  AppModels v;
  v.run_scales = {{"lu", 4, 1.2, "a", 1000, "basic"}, {"lu", 4, 0.9, "b", 1000, "pipelined"},
                  {"lu", 4, 0.9, "c", 1000, "pipelined"}};
  CHECK(v.scales("lu", 4, 1000, "basic") == std::vector<double>{1.2});
  CHECK(median(v.scales("lu", 4, 1000, "pipelined")) == Approx(0.9));
  CHECK(v.scales("lu", 4, 1000, "flow_control").size() == 3);
  CHECK(median(v.scales("lu", 4, 1000, "flow_control")) == Approx(0.9));  // the shorth's median of 0.9, 0.9, 1.2
  // A regime with a block size: its family's levels and spread (the variant's, any block size), times
  // its own correction, the shorth's median of its runs over the family's level at their size; a
  // regime without runs of its own, its family's level; a family without runs, every run of the app.
  AppModels r;
  for (int k = 0; k < 3; ++k) {
    r.run_scales.push_back({"lu", 4, 1.2, "a", 1000, "basic/r64"});
    r.run_scales.push_back({"lu", 4, 0.8, "b", 1000, "basic/r256"});
    r.run_scales.push_back({"lu", 4, 0.7, "c", 1000, "pipelined/r64"});
  }
  const auto r64 = r.scales("lu", 4, 1000, "basic/r64"), r256 = r.scales("lu", 4, 1000, "basic/r256");
  REQUIRE(r64.size() == 6);  // the family's spread
  REQUIRE(r256.size() == 6);
  CHECK(median(r64) / median(r256) == Approx(1.5));
  CHECK(r64.back() / r64.front() == Approx(1.5));  // spread as the family's runs around its level
  CHECK(median(r.scales("lu", 4, 1000, "basic/r128")) == Approx(median(r.scales("lu", 4, 1000, "basic"))));
  CHECK(r.scales("lu", 4, 1000, "pipelined/r128") == std::vector<double>{0.7, 0.7, 0.7});
  CHECK(r.scales("lu", 4, 1000, "pipelined/r64") == std::vector<double>{0.7, 0.7, 0.7});
  CHECK(r.scales("lu", 4, 1000, "flow_control/r64").size() == 9);  // no family: all
  CHECK(median(v.scales("lu", 4, 1000, "pipelined/r128")) == Approx(0.9));  // an older profile's variant
  // One run per size: a level per size would be that run alone and leave no spread, so the rank
  // count has one level over its sizes (the shorth's median of all four) and their spread.
  AppModels single;
  single.run_scales = {{"integrate", 2, 1.0, "a", 1e5}, {"integrate", 2, 1.1, "b", 2e5},
                       {"integrate", 2, 1.2, "c", 1.5e5}, {"integrate", 2, 1.3, "d", 3e5}};
  const auto pooled = single.scales("integrate", 2, 2e5);
  REQUIRE(pooled.size() == 4);
  CHECK(pooled.front() < pooled.back());
  CHECK(median(pooled) == Approx(1.15));
  // Runs without a size (an older profile) form one level that every size gets.
  AppModels old;
  old.run_scales = {{"lu", 1, 1.1, "a"}, {"lu", 1, 1.3, "b"}};
  CHECK(median(old.scales("lu", 1, 3000)) == Approx(1.2));
  // Each run is spread relative to its own level: seven ratios, all at the queried level here.
  const auto spread = a.scales("lu", 1, 4000);
  REQUIRE(spread.size() == 7);
  CHECK(spread.front() == Approx(1.0));
  CHECK(spread.back() == Approx(1.0));
}

TEST_CASE("model: a regime over a reference regime adds its time per rank to the reference's level") {
  // The reference (no load): level 1.0 on 8 ranks and 1.1 on 32, at 10^6 and 8·10^6 steps. The load
  // costs 4 ms per rank on 8 ranks and 8 ms on 32, whatever the steps: its runs' ratios are the
  // reference's plus ranks · e / predicted, so they fall as the steps (and the prediction) grow.
  AppModels a;
  const std::string load = "m65536-d1048576", none = "m32-d0";
  auto add = [&](int ranks, double size, double reference, double per_rank_s, double predicted_s) {
    for (int k = 0; k < 3; ++k) {
      a.run_scales.push_back({"integrate", ranks, reference, "r", size, none, predicted_s});
      a.run_scales.push_back({"integrate", ranks, reference + ranks * per_rank_s / predicted_s, "l", size, load, predicted_s});
    }
  };
  add(8, 1e6, 1.0, 0.004, 0.1);
  add(8, 8e6, 1.0, 0.004, 0.8);
  add(32, 1e6, 1.1, 0.008, 0.4);
  add(32, 8e6, 1.1, 0.008, 3.2);
  // 16 ranks is halfway in log(ranks): reference level 1.05 and 6 ms per rank, over a 0.9 s prediction.
  const auto loaded = a.scales("integrate", 16, 4e6, load, {none, 0.9});
  REQUIRE(loaded.size() == 12);  // the load's runs: their spread (none here) around the level
  CHECK(loaded.front() == Approx(1.05 + 16 * 0.006 / 0.9));
  CHECK(loaded.back() == Approx(1.05 + 16 * 0.006 / 0.9));
  // At a calibrated count and size, the runs' own level again.
  CHECK(median(a.scales("integrate", 8, 1e6, load, {none, 0.1})) == Approx(1.32));
  // Beyond the calibrated counts, the nearest count's time per rank, on this job's ranks.
  CHECK(median(a.scales("integrate", 64, 8e6, load, {none, 6.4})) == Approx(1.1 + 64 * 0.008 / 6.4));
  // Without the point prediction, or in a profile without predicted times, the load's own ratios.
  CHECK(median(a.scales("integrate", 16, 4e6, load, {none, 0})) == Approx(median(a.scales("integrate", 16, 4e6, load))));
  AppModels old = a;
  for (auto& s : old.run_scales) s.predicted_s = 0;
  CHECK(median(old.scales("integrate", 16, 4e6, load, {none, 0.9})) == Approx(median(a.scales("integrate", 16, 4e6, load))));
  // The reference regime itself, and a regime without runs of its own: the reference's runs, not
  // every run of the app.
  CHECK(a.scales("integrate", 8, 1e6, none, {none, 0.1}) == std::vector<double>(12, 1.0));
  CHECK(a.scales("integrate", 8, 1e6, "m1024-d0", {none, 0.1}) == std::vector<double>(12, 1.0));
  CHECK(a.scales("integrate", 8, 1e6, "m1024-d0").size() == 24);  // no reference: every run of the app
}
