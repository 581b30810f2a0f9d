// Operation time models calibrated on the applications' traces (see app_model.hpp).
#include "hetperf/model/app_model.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/json_node.hpp"
#include "hetperf/model/statistics.hpp"

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
      {"pack", {"mn", "1"}},
      {"integrate", {"steps"}},
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
  if (c.op == "pack") return {m * n, 1};
  if (c.op == "integrate") return {c.steps};
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

const OperationModel* AppModels::find(const std::string& op) const {
  auto it = std::find_if(operations.begin(), operations.end(), [&](const OperationModel& m) { return m.op == op; });
  return it == operations.end() ? nullptr : &*it;
}

nlohmann::json to_json(const AppModels& models) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& m : models.operations) {
    nlohmann::json bands = nlohmann::json::array();
    for (const auto& b : m.residuals) bands.push_back({{"up_to_s", b.up_to_s}, {"values", b.values}});
    ops.push_back({{"op", m.op},
                   {"features", m.features},
                   {"coefficients_s", m.coefficients_s},
                   {"feature_min", m.feature_min},
                   {"feature_max", m.feature_max},
                   {"calls", m.calls},
                   {"median_abs_residual", m.median_abs_residual},
                   {"residuals", bands},
                   {"traces", m.traces}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : models.runs) {
    nlohmann::json j = {{"trace", r.trace}, {"factor", r.factor}};
    if (!r.message_delays_s.empty()) j["message_delays_s"] = r.message_delays_s;
    runs.push_back(j);
  }
  nlohmann::json out = {{"operations", ops}, {"runs", runs}};
  if (const auto& m = models.messages) {
    out["local_messages"] = {{"latency_s", m->latency_s}, {"seconds_per_byte", m->seconds_per_byte},
                             {"min_bytes", m->min_bytes}, {"max_bytes", m->max_bytes},
                             {"messages", m->messages},   {"traces", m->traces}};
    if (!m->source.empty()) out["local_messages"]["source"] = m->source;
  }
  if (!models.concurrency_speed.empty()) out["concurrency_speed"] = models.concurrency_speed;
  if (models.call_gap_s > 0) out["call_gap_s"] = models.call_gap_s;
  if (!models.calibrated.ranks.empty() || !models.calibrated.sizes.empty()) {
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [app, range] : models.calibrated.sizes) sizes[app] = {range.first, range.second};
    out["calibrated"] = {{"ranks", models.calibrated.ranks},
                         {"sizes", sizes},
                         {"variants", models.calibrated.variants},
                         {"with", models.calibrated.with}};
  }
  if (auto pooled = models.model_error_log.find(""); pooled != models.model_error_log.end()) {
    out["model_error_log"] = pooled->second;  // as it was read
  } else if (!models.model_error_log.empty()) {
    out["model_error_log"] = models.model_error_log;
  }
  return out;
}

namespace {

MessageModel message_model_from_json(const JsonNode& m) {
  m.known_fields({"latency_s", "seconds_per_byte", "min_bytes", "max_bytes", "messages", "traces", "source"});
  MessageModel model;
  model.latency_s = m.number("latency_s");
  model.seconds_per_byte = m.number("seconds_per_byte", Range::kNonNegative);
  model.min_bytes = static_cast<std::uint64_t>(m.integer_or("min_bytes", 0, 0, INT64_MAX));
  model.max_bytes = static_cast<std::uint64_t>(m.integer_or("max_bytes", 0, 0, INT64_MAX));
  model.source = m.string_or("source", "");
  // A line from a probe counts no application messages.
  model.messages = static_cast<std::uint64_t>(m.integer("messages", model.source.empty() ? 1 : 0, INT64_MAX));
  if (auto traces = m.optional("traces")) {
    for (const JsonNode& t : traces->items()) model.traces.push_back(t.as_string());
  }
  return model;
}

OperationModel operation_model_from_json(const JsonNode& o) {
  if (o.optional("ranks")) {
    o.field("ranks").fail(
        "no rank count: operation models belong to a computer, not to a configuration "
        "(a profile of an older hetperf; calibrate it again)");
  }
  o.known_fields({"op", "features", "coefficients_s", "feature_min", "feature_max", "calls", "median_abs_residual",
                  "residuals", "traces"});
  OperationModel m;
  m.op = o.choice("op", {"gemm", "trsm", "getrf", "laswp", "pack", "integrate"});
  m.features = operation_features(m.op);
  const auto given = o.array("features", m.features.size());
  for (std::size_t j = 0; j < given.size(); ++j) {
    if (j >= m.features.size() || given[j].as_string() != m.features[j])
      o.field("features").fail("the features of " + m.op + " in order");
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
      if (!m.residuals.empty() && band.up_to_s < m.residuals.back().up_to_s)
        b.field("up_to_s").fail("bands by increasing up_to_s");
      m.residuals.push_back(std::move(band));
    }
  }
  if (auto traces = o.optional("traces")) {
    for (const JsonNode& t : traces->items()) m.traces.push_back(t.as_string());
  }
  return m;
}

RunState run_state_from_json(const JsonNode& r) {
  r.known_fields({"trace", "factor", "message_delays_s"});
  RunState state;
  state.trace = r.string_or("trace", "");
  if (auto delays = r.optional("message_delays_s")) {
    for (const JsonNode& d : delays->items()) state.message_delays_s.push_back(d.as_number());
  }
  const JsonNode factor = r.object("factor");
  for (const auto& [op, value] : factor.value().items()) {
    if (operation_features(op).empty()) factor.fail("operations among gemm, trsm, getrf, laswp, pack, integrate");
    state.factor[op] = factor.number(op, Range::kPositive);
  }
  return state;
}

CalibratedRange calibrated_range_from_json(const JsonNode& c) {
  c.known_fields({"ranks", "sizes", "variants", "with"});
  CalibratedRange out;
  for (const char* key : {"variants", "with"}) {
    auto& list = std::string(key) == "variants" ? out.variants : out.with;
    if (auto v = c.optional(key)) {
      for (const JsonNode& x : v->items()) list.push_back(x.as_string());
    }
    if (!std::is_sorted(list.begin(), list.end())) c.field(key).fail("sorted names");
  }
  for (const JsonNode& r : c.array("ranks")) {
    const double v = r.as_number(Range::kPositive);
    if (v != std::floor(v) || v > (1 << 20)) r.fail("a rank count from 1 to 1048576");
    out.ranks.push_back(static_cast<int>(v));
  }
  if (!std::is_sorted(out.ranks.begin(), out.ranks.end())) c.field("ranks").fail("ascending rank counts");
  const JsonNode sizes = c.object("sizes");
  for (const auto& [app, value] : sizes.value().items()) {
    if (app != "lu" && app != "integrate") sizes.fail("apps among lu, integrate");
    const auto range = sizes.array(app, 2);
    if (range.size() != 2) sizes.field(app).fail("[smallest, largest]");
    const double lo = range[0].as_number(Range::kPositive), hi = range[1].as_number(Range::kPositive);
    if (lo > hi) sizes.field(app).fail("[smallest, largest] with smallest <= largest");
    out.sizes[app] = {lo, hi};
  }
  return out;
}

}  // namespace

AppModels app_models_from_json(const JsonNode& node) {
  for (const char* gone : {"run_scales", "messages"}) {
    if (node.optional(gone)) {
      node.field(gone).fail(std::string("no \"") + gone +
                            "\": whole-run ratios and message models per rank count belong to "
                            "configurations, not to the computer (a profile of an older hetperf; calibrate it again)");
    }
  }
  node.known_fields(
      {"operations", "local_messages", "runs", "concurrency_speed", "call_gap_s", "calibrated", "model_error_log"});
  AppModels out;
  if (auto messages = node.optional("local_messages")) out.messages = message_model_from_json(*messages);
  for (const JsonNode& o : node.array("operations")) {
    OperationModel m = operation_model_from_json(o);
    if (out.find(m.op)) o.field("op").fail("one model per operation");
    out.operations.push_back(std::move(m));
  }
  if (auto runs = node.optional("runs")) {
    for (const JsonNode& r : runs->items()) out.runs.push_back(run_state_from_json(r));
  }
  out.call_gap_s = node.number_or("call_gap_s", 0, Range::kNonNegative);
  if (out.call_gap_s > 1) node.field("call_gap_s").fail("seconds between two operations of a rank, at most 1");
  if (auto speed = node.optional("concurrency_speed")) {
    for (const JsonNode& v : speed->items()) out.concurrency_speed.push_back(v.as_number(Range::kPositive));
    if (out.concurrency_speed.empty()) node.field("concurrency_speed").fail("at least one speed (k = 1)");
  }
  if (auto c = node.optional("calibrated")) out.calibrated = calibrated_range_from_json(*c);
  if (auto e = node.optional("model_error_log")) {
    if (e->value().is_array()) {
      for (const JsonNode& v : e->items()) out.model_error_log[""].push_back(v.as_number());
    } else {
      if (!e->value().is_object()) e->fail("an object of the deviations per application (\"lu\", \"integrate\")");
      e->known_fields({"lu", "integrate"});
      for (const char* app : {"lu", "integrate"}) {
        if (auto list = e->optional(app)) {
          auto& values = out.model_error_log[app];
          for (const JsonNode& v : list->items()) values.push_back(v.as_number());
        }
      }
    }
  }
  return out;
}

OperationNoise::OperationNoise(std::uint64_t seed, std::uint64_t sample)
    : rng_(seed ^ (0x9E3779B97F4A7C15ULL * (sample + 1))) {}

double OperationNoise::uniform() { return rng_.uniform01(); }

double OperationNoise::position(std::size_t computer) {
  auto it = position_of_computer_.find(computer);
  if (it == position_of_computer_.end()) it = position_of_computer_.emplace(computer, rng_.uniform01()).first;
  return it->second;
}

namespace {

// The element at position u in [0, 1) of `n` equally likely ones.
std::size_t at_position(double u, std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
}

}  // namespace

double OperationNoise::run_factor(std::size_t computer, const AppModels& models, const std::string& op) {
  auto key = std::make_pair(computer, op);
  if (auto it = factor_of_.find(key); it != factor_of_.end()) return it->second;
  std::vector<double> factors;
  for (const RunState& run : models.runs) {
    if (auto f = run.factor.find(op); f != run.factor.end()) factors.push_back(f->second);
  }
  const double factor = factors.empty() ? 1.0 : factors[at_position(position(computer), factors.size())];
  factor_of_.emplace(std::move(key), factor);
  return factor;
}

double OperationNoise::message_delay(std::size_t computer, const AppModels& models) {
  auto it = delays_of_.find(computer);
  if (it == delays_of_.end()) {
    std::vector<const RunState*> with_delays;
    for (const RunState& run : models.runs) {
      if (!run.message_delays_s.empty()) with_delays.push_back(&run);
    }
    const std::vector<double>* delays = nullptr;
    if (!with_delays.empty())
      delays = &with_delays[at_position(position(computer), with_delays.size())]->message_delays_s;
    it = delays_of_.emplace(computer, delays).first;
  }
  if (it->second == nullptr) return 0;
  return (*it->second)[rng_.index(it->second->size())];
}

}  // namespace hetperf
