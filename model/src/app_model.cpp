// Operation time models calibrated on the applications' traces (see app_model.hpp).
#include "hetperf/model/app_model.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/json_node.hpp"

namespace hetperf {
namespace {

const std::vector<std::string> kNone;

std::vector<double> numbers(const JsonNode& node, const char* key, std::size_t size, Range range) {
  std::vector<double> out;
  for (const JsonNode& v : node.array(key, size)) out.push_back(v.as_number(range));
  if (out.size() != size) node.field(key).fail(std::to_string(size) + " numbers (one per feature)");
  return out;
}

}  // namespace

const std::vector<std::string>& operation_features(const std::string& op) {
  static const std::map<std::string, std::vector<std::string>> forms = {
      {"gemm", {"mnk", "mn", "mk", "nk", "1"}},
      {"trsm", {"mmn", "mn", "mm", "1"}},
      {"getrf", {"mnn", "nnn", "mn", "nn", "1"}},
      {"laswp", {"mn", "nk", "n", "1"}},
      {"integrate", {"steps", "1"}},
  };
  auto it = forms.find(op);
  return it == forms.end() ? kNone : it->second;
}

std::vector<double> feature_values(const OperationCall& c) {
  const double m = c.m, n = c.n, k = c.k;
  if (c.op == "gemm") return {m * n * k, m * n, m * k, n * k, 1};
  if (c.op == "trsm") return {m * m * n, m * n, m * m, 1};
  if (c.op == "getrf") return {m * n * n, n * n * n, m * n, n * n, 1};
  if (c.op == "laswp") return {m * n, n * k, n, 1};
  if (c.op == "integrate") return {c.steps, 1};
  return {};
}

double OperationModel::time_s(const OperationCall& call) const {
  const std::vector<double> x = feature_values(call);
  double t = 0;
  for (std::size_t j = 0; j < x.size() && j < coefficients_s.size(); ++j) t += coefficients_s[j] * x[j];
  return std::max(0.0, t);
}

bool OperationModel::in_range(const OperationCall& call) const {
  const std::vector<double> x = feature_values(call);
  for (std::size_t j = 0; j < x.size() && j < feature_min.size() && j < feature_max.size(); ++j) {
    if (x[j] < feature_min[j] / 2 || x[j] > feature_max[j] * 2) return false;
  }
  return true;
}

double OperationModel::residual(double t, double u) const {
  if (residuals.empty()) return 1;
  auto band = std::find_if(residuals.begin(), residuals.end(), [t](const ResidualBand& b) { return t <= b.up_to_s; });
  const std::vector<double>& v = (band == residuals.end() ? residuals.back() : *band).values;
  const auto i = static_cast<std::size_t>(std::clamp(u, 0.0, 1.0) * static_cast<double>(v.size()));
  return v[std::min(i, v.size() - 1)];
}

const OperationModel* AppModels::find(const std::string& op, int ranks) const {
  const OperationModel* below = nullptr;
  const OperationModel* above = nullptr;
  for (const auto& m : operations) {
    if (m.op != op) continue;
    if (m.ranks == ranks) return &m;
    if (m.ranks < ranks && (!below || m.ranks > below->ranks)) below = &m;
    if (m.ranks > ranks && (!above || m.ranks < above->ranks)) above = &m;
  }
  return below ? below : above;
}

nlohmann::json to_json(const AppModels& models) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& m : models.operations) {
    nlohmann::json bands = nlohmann::json::array();
    for (const auto& b : m.residuals) bands.push_back({{"up_to_s", b.up_to_s}, {"values", b.values}});
    ops.push_back({{"op", m.op}, {"ranks", m.ranks}, {"features", m.features}, {"coefficients_s", m.coefficients_s},
                   {"feature_min", m.feature_min}, {"feature_max", m.feature_max}, {"calls", m.calls},
                   {"median_abs_residual", m.median_abs_residual}, {"residuals", bands}, {"traces", m.traces}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : models.runs) runs.push_back({{"trace", r.trace}, {"factor", r.factor}});
  return {{"operations", ops}, {"runs", runs}};
}

AppModels app_models_from_json(const JsonNode& node) {
  node.known_fields({"operations", "runs"});
  AppModels out;
  for (const JsonNode& o : node.array("operations")) {
    o.known_fields({"op", "ranks", "features", "coefficients_s", "feature_min", "feature_max", "calls",
                    "median_abs_residual", "residuals", "traces"});
    OperationModel m;
    m.op = o.choice("op", {"gemm", "trsm", "getrf", "laswp", "integrate"});
    m.ranks = static_cast<int>(o.integer("ranks", 1, 1 << 20));
    m.features = operation_features(m.op);
    const auto given = o.array("features", m.features.size());
    for (std::size_t j = 0; j < given.size(); ++j) {
      if (j >= m.features.size() || given[j].as_string() != m.features[j]) {
        o.field("features").fail("the features of " + m.op + " in order");
      }
    }
    m.coefficients_s = numbers(o, "coefficients_s", m.features.size(), Range::kAny);
    m.feature_min = numbers(o, "feature_min", m.features.size(), Range::kNonNegative);
    m.feature_max = numbers(o, "feature_max", m.features.size(), Range::kNonNegative);
    m.calls = static_cast<std::uint64_t>(o.integer("calls", 1, INT64_MAX));
    m.median_abs_residual = o.number_or("median_abs_residual", 0, Range::kNonNegative);
    if (auto bands = o.optional("residuals")) {
      for (const JsonNode& b : bands->items()) {
        b.known_fields({"up_to_s", "values"});
        ResidualBand band;
        band.up_to_s = b.number("up_to_s", Range::kNonNegative);
        for (const JsonNode& q : b.array("values", 1)) band.values.push_back(q.as_number(Range::kPositive));
        if (!std::is_sorted(band.values.begin(), band.values.end())) b.field("values").fail("non-decreasing values");
        if (!m.residuals.empty() && band.up_to_s < m.residuals.back().up_to_s) b.field("up_to_s").fail("bands by increasing up_to_s");
        m.residuals.push_back(std::move(band));
      }
    }
    if (auto traces = o.optional("traces")) {
      for (const JsonNode& t : traces->items()) m.traces.push_back(t.as_string());
    }
    for (const auto& other : out.operations) {
      if (other.op == m.op && other.ranks == m.ranks) o.field("ranks").fail("one model per operation and rank count");
    }
    out.operations.push_back(std::move(m));
  }
  if (auto runs = node.optional("runs")) {
    for (const JsonNode& r : runs->items()) {
      r.known_fields({"trace", "factor"});
      RunState state;
      state.trace = r.string_or("trace", "");
      const JsonNode factor = r.object("factor");
      for (const auto& [op, value] : factor.value().items()) {
        if (operation_features(op).empty()) factor.fail("operations among gemm, trsm, getrf, laswp, integrate");
        state.factor[op] = factor.number(op, Range::kPositive);
      }
      out.runs.push_back(std::move(state));
    }
  }
  return out;
}

OperationNoise::OperationNoise(std::uint64_t seed, std::uint64_t sample)
    : rng_(seed ^ (0x9E3779B97F4A7C15ULL * (sample + 1))) {}

double OperationNoise::uniform() { return rng_.uniform01(); }

double OperationNoise::run_factor(std::size_t computer, const AppModels& models, const std::string& op) {
  if (models.runs.empty()) return 1;
  auto it = run_of_computer_.find(computer);
  if (it == run_of_computer_.end()) {
    const auto run = static_cast<std::size_t>(rng_.uniform01() * static_cast<double>(models.runs.size()));
    it = run_of_computer_.emplace(computer, std::min(run, models.runs.size() - 1)).first;
  }
  const auto& factors = models.runs[it->second].factor;
  auto f = factors.find(op);
  return f == factors.end() ? 1 : f->second;
}

}  // namespace hetperf
