// Operation time models calibrated on the applications' traces (see app_model.hpp).
#include "hetperf/model/app_model.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/json_node.hpp"
#include "hetperf/model/statistics.hpp"

namespace hetperf {
namespace {

const std::vector<std::string> kNone;

// The model of the rank count nearest `ranks` among `models` (of that count, else the nearest below,
// else the smallest above), of those `fits`; nullptr when none does.
template <typename Model, typename Fits>
const Model* nearest_ranks(const std::vector<Model>& models, int ranks, Fits fits) {
  const Model* below = nullptr;
  const Model* above = nullptr;
  for (const auto& m : models) {
    if (!fits(m)) continue;
    if (m.ranks == ranks) return &m;
    if (m.ranks < ranks && (!below || m.ranks > below->ranks)) below = &m;
    if (m.ranks > ranks && (!above || m.ranks < above->ranks)) above = &m;
  }
  return below ? below : above;
}

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

const OperationModel* AppModels::find(const std::string& op, int ranks) const {
  return nearest_ranks(operations, ranks, [&](const OperationModel& m) { return m.op == op; });
}

namespace {

enum class Axis { kLog, kReciprocal };

// Runs of one rank count and size that make a level of their own (AppModels::scales).
constexpr std::size_t kRunsPerLevel = 3;

// The value at `x` of the piecewise-linear curve through `levels` in log(x) or in 1/x: between two
// keys, their line; beyond them, the nearest one's value. `levels` is not empty; keys are positive,
// or 0 alone.
double interpolate(const std::map<double, double>& levels, double x, Axis axis) {
  const auto above = levels.lower_bound(x);
  if (above == levels.end()) return std::prev(above)->second;
  if (above->first == x || above == levels.begin() || x <= 0) return above->second;
  const auto below = std::prev(above);
  if (below->first <= 0) return above->second;
  const double t = axis == Axis::kLog ? std::log(x / below->first) / std::log(above->first / below->first)
                                      : (1 / x - 1 / below->first) / (1 / above->first - 1 / below->first);
  return below->second + t * (above->second - below->second);
}

using Groups = std::map<int, std::map<double, std::vector<double>>>;  // ranks -> size -> ratios
using Levels = std::map<int, std::map<double, double>>;               // ranks -> size -> level

// The ratios of the runs `keep` selects, by rank count and size. A level of its own needs repeated
// runs of its size: a single run is its own level and would leave no spread. A rank count with a
// size of fewer than kRunsPerLevel runs has one level over all its sizes (size key 0).
template <class Keep>
Groups group_runs(const std::vector<RunScale>& runs, Keep keep) {
  Groups groups;
  for (const auto& s : runs) {
    if (keep(s)) groups[s.ranks][s.size].push_back(s.ratio);
  }
  for (auto& [r, by_size] : groups) {
    const bool thin = std::any_of(by_size.begin(), by_size.end(), [](const auto& g) { return g.second.size() < kRunsPerLevel; });
    if (!thin || by_size.size() == 1) continue;
    std::vector<double> all;
    for (const auto& [z, ratios] : by_size) all.insert(all.end(), ratios.begin(), ratios.end());
    by_size = {{0.0, all}};
  }
  return groups;
}

Levels levels_of(const Groups& groups) {
  Levels levels;
  for (const auto& [r, by_size] : groups) {
    for (const auto& [z, ratios] : by_size) levels[r][z] = shorth_median(ratios);
  }
  return levels;
}

// The level at (ranks, size): each rank count's on its line in 1/size, then the line in log(ranks).
double level_at(const Levels& levels, int ranks, double size) {
  std::map<double, double> at_size;  // rank count -> its level at `size`
  for (const auto& [r, by_size] : levels) at_size[r] = interpolate(by_size, size, Axis::kReciprocal);
  return interpolate(at_size, ranks, Axis::kLog);
}

}  // namespace

std::vector<double> AppModels::scales(const std::string& app, int ranks, double size, const std::string& variant,
                                      const ExcessOver& excess) const {
  return run_scale_draws(run_scales, app, ranks, size, variant, excess);
}

std::vector<double> run_scale_draws(const std::vector<RunScale>& run_scales, const std::string& app, int ranks,
                                    double size, const std::string& variant, const ExcessOver& excess) {
  // The location: the shorth's median of the calibration runs of one rank count and size, their
  // undisturbed level (with as many ranks as cores, preemption stalls runs in a heavy right tail: 10
  // of 18 short LU runs on this VM once, and a plain median was a stalled run's). The level moves
  // with the size: what the operation models miss weighs less in a larger LU, whose runs on this VM
  // were predicted 4%, 6% and 9% long at n = 1536, 2048 and 3072 (one rank) with one level taken
  // from n ≤ 1024 (results/vm at 7c9bec1). Between two calibrated sizes the level is on their line in
  // 1/size: a time the models miss that grows one power slower than the work (LU's O(n²) beside its
  // O(n³); an integration's waits for the CPU, the same whatever its steps) makes the ratio
  // a + b/size; loaded integrations measured 1.70 at 10^6 steps and 1.07 at 8·10^6, i.e. 1 + 0.7/size
  // in millions. It moves with the processes per core too, which double from one rank count to the
  // next; neither neighbour alone is a count's level, hence the line in log(ranks) between two
  // calibrated counts. And it moves with the regime where ranks outnumber cores: 4-rank LU on this
  // VM was predicted 18% long (basic, the variant calibrated), 7% (flow control) and 5% short
  // (pipelined) with one level, and integrations sending 64 KiB and writing 1 MiB 17-28% short with
  // the level of runs sending 32 bytes (each blocking step needs the process scheduled in again);
  // where a family of regimes has its own calibration runs, it has its own levels. The spread is pooled over
  // every calibration run used, each relative to its own level: a few runs per level show the level
  // well, but their spread poorly.
  // Within a family a regime is narrower still where ranks outnumber cores: on 4 ranks here, LU with
  // r = 64 was predicted 4-22% long and with r = 256 2-25% short under one level per variant
  // (results/vm at cab60db), so LU's regime holds its block size too. Its 3 runs per size are too
  // few for levels of their own (one stalled run moved a 2-rank level by 35%), so the family's levels
  // and spread stand, times the regime's correction per rank count: the shorth's median of its runs
  // over the family's level at their size, pooled over its sizes (ratio = family level(ranks, size) ×
  // regime correction(ranks) × noise). A regime without runs of its own takes its family's level
  // (the variant's, whatever the block size), and a family without runs every run of the app.
  const auto family = [](const std::string& v) { return v.substr(0, v.find('/')); };
  const auto kin = [&](const RunScale& s) { return s.app == app && family(s.variant) == family(variant); };
  const auto of_reference = [&](const RunScale& s) { return s.app == app && s.variant == excess.reference; };
  const bool by_family = !variant.empty() && std::any_of(run_scales.begin(), run_scales.end(), kin);
  // An integration's load adds a time, not a factor: with 64 KiB messages and 1 MiB synced writes,
  // 4 and 16 instances here took 32-44 ms and 113-153 ms longer than without, at 10^6, 4·10^6 and
  // 8·10^6 steps alike (results/vm at 72f6e9d), so their ratio fell from 2.0 to 1.15 as the steps
  // grew, and a level per rank count from three runs followed their noise (64 instances: 1.29-1.42 at
  // 4·10^6 steps; 50 and 100 instances then predicted 8.5% and 6.1% long). The time per rank, pooled
  // over every size of a rank count, is the steadier quantity.
  const bool by_reference = !excess.reference.empty() && excess.reference != variant &&
                            std::any_of(run_scales.begin(), run_scales.end(), of_reference);
  const Groups groups = group_runs(run_scales, [&](const RunScale& s) {
    if (by_family) return kin(s);
    return by_reference ? of_reference(s) : s.app == app;
  });
  if (groups.empty()) return {};
  const Levels levels = levels_of(groups);
  double level = level_at(levels, ranks, size);
  if (by_family && family(variant) != variant) {
    std::map<int, std::vector<double>> relative;  // rank count -> the regime's runs over their family level
    for (const auto& s : run_scales) {
      if (s.app == app && s.variant == variant) {
        relative[s.ranks].push_back(s.ratio / interpolate(levels.at(s.ranks), s.size, Axis::kReciprocal));
      }
    }
    std::map<double, double> correction;
    for (const auto& [r, v] : relative) correction[r] = shorth_median(v);
    if (!correction.empty()) level *= interpolate(correction, ranks, Axis::kLog);
  }
  if (by_family && by_reference && excess.point_s > 0) {
    const Levels reference = levels_of(group_runs(run_scales, of_reference));
    std::map<int, std::vector<double>> per_rank;  // rank count -> the variant's runs' time per rank over the reference
    for (const auto& s : run_scales) {
      if (s.app == app && s.variant == variant && s.predicted_s > 0) {
        per_rank[s.ranks].push_back(s.predicted_s * (s.ratio - level_at(reference, s.ranks, s.size)) / s.ranks);
      }
    }
    std::map<double, double> time_per_rank;
    for (const auto& [r, v] : per_rank) time_per_rank[r] = shorth_median(v);
    if (!time_per_rank.empty()) {
      const double total = level_at(reference, ranks, size) + ranks * interpolate(time_per_rank, ranks, Axis::kLog) / excess.point_s;
      if (total > 0) level = total;  // a load measured as a gain beyond the whole reference time: keep the ratio
    }
  }
  std::vector<double> out;
  for (const auto& [r, by_size] : groups) {
    for (const auto& [z, ratios] : by_size) {
      for (double x : ratios) out.push_back(level * x / levels.at(r).at(z));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const MessageModel* AppModels::find_messages(int ranks) const {
  return nearest_ranks(messages, ranks, [](const MessageModel&) { return true; });
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
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : models.messages) {
    messages.push_back({{"ranks", m.ranks}, {"latency_s", m.latency_s}, {"seconds_per_byte", m.seconds_per_byte},
                        {"min_bytes", m.min_bytes}, {"max_bytes", m.max_bytes}, {"messages", m.messages},
                        {"traces", m.traces}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : models.runs) {
    nlohmann::json j = {{"trace", r.trace}, {"factor", r.factor}};
    if (!r.message_delays_s.empty()) j["message_delays_s"] = r.message_delays_s;
    runs.push_back(j);
  }
  nlohmann::json out = {{"operations", ops}, {"runs", runs}};
  if (!messages.empty()) out["messages"] = messages;
  if (!models.run_scales.empty()) out["run_scales"] = to_json(models.run_scales);
  return out;
}

nlohmann::json to_json(const std::vector<RunScale>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : runs) {
    nlohmann::json j = {{"app", r.app}, {"ranks", r.ranks}, {"ratio", r.ratio}, {"trace", r.trace}};
    if (r.size > 0) j["size"] = r.size;
    if (!r.variant.empty()) j["variant"] = r.variant;
    if (r.predicted_s > 0) j["predicted_s"] = r.predicted_s;
    out.push_back(j);
  }
  return out;
}

std::vector<RunScale> run_scales_from_json(const JsonNode& array) {
  std::vector<RunScale> out;
  for (const JsonNode& r : array.items()) {
    r.known_fields({"app", "ranks", "ratio", "trace", "size", "variant", "predicted_s"});
    out.push_back({r.choice("app", {"lu", "integrate"}), static_cast<int>(r.integer("ranks", 1, 1 << 20)),
                   r.number("ratio", Range::kPositive), r.string_or("trace", ""),
                   r.optional("size") ? r.number("size", Range::kPositive) : 0.0, r.string_or("variant", ""),
                   r.optional("predicted_s") ? r.number("predicted_s", Range::kPositive) : 0.0});
  }
  return out;
}

std::vector<std::string> placement_pattern(const std::vector<std::string>& rank_hosts) {
  const std::size_t n = rank_hosts.size();
  for (std::size_t unit = 1; unit < n; ++unit) {
    if (n % unit != 0) continue;
    bool repeats = true;
    for (std::size_t i = unit; i < n && repeats; ++i) repeats = rank_hosts[i] == rank_hosts[i - unit];
    if (repeats) return {rank_hosts.begin(), rank_hosts.begin() + static_cast<std::ptrdiff_t>(unit)};
  }
  return rank_hosts;
}

AppModels app_models_from_json(const JsonNode& node) {
  node.known_fields({"operations", "messages", "runs", "run_scales"});
  AppModels out;
  if (auto scales = node.optional("run_scales")) out.run_scales = run_scales_from_json(*scales);
  if (auto messages = node.optional("messages")) {
    for (const JsonNode& m : messages->items()) {
      m.known_fields({"ranks", "latency_s", "seconds_per_byte", "min_bytes", "max_bytes", "messages", "traces"});
      MessageModel model;
      model.ranks = static_cast<int>(m.integer("ranks", 1, 1 << 20));
      model.latency_s = m.number("latency_s");
      model.seconds_per_byte = m.number("seconds_per_byte", Range::kNonNegative);
      model.min_bytes = static_cast<std::uint64_t>(m.integer_or("min_bytes", 0, 0, INT64_MAX));
      model.max_bytes = static_cast<std::uint64_t>(m.integer_or("max_bytes", 0, 0, INT64_MAX));
      model.messages = static_cast<std::uint64_t>(m.integer("messages", 1, INT64_MAX));
      if (auto traces = m.optional("traces")) {
        for (const JsonNode& t : traces->items()) model.traces.push_back(t.as_string());
      }
      for (const auto& other : out.messages) {
        if (other.ranks == model.ranks) m.field("ranks").fail("one message model per rank count");
      }
      out.messages.push_back(std::move(model));
    }
  }
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
      r.known_fields({"trace", "factor", "message_delays_s"});
      RunState state;
      state.trace = r.string_or("trace", "");
      if (auto delays = r.optional("message_delays_s")) {
        for (const JsonNode& d : delays->items()) state.message_delays_s.push_back(d.as_number());
      }
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

std::size_t OperationNoise::run_of(std::size_t computer, const AppModels& models) {
  auto it = run_of_computer_.find(computer);
  if (it == run_of_computer_.end()) {
    const auto run = static_cast<std::size_t>(rng_.uniform01() * static_cast<double>(models.runs.size()));
    it = run_of_computer_.emplace(computer, std::min(run, models.runs.size() - 1)).first;
  }
  return it->second;
}

double OperationNoise::run_factor(std::size_t computer, const AppModels& models, const std::string& op) {
  if (models.runs.empty()) return 1;
  const auto& factors = models.runs[run_of(computer, models)].factor;
  auto f = factors.find(op);
  return f == factors.end() ? 1 : f->second;
}

double OperationNoise::message_delay(std::size_t computer, const AppModels& models) {
  if (models.runs.empty()) return 0;
  const auto& delays = models.runs[run_of(computer, models)].message_delays_s;
  if (delays.empty()) return 0;
  const auto i = static_cast<std::size_t>(rng_.uniform01() * static_cast<double>(delays.size()));
  return delays[std::min(i, delays.size() - 1)];
}

}  // namespace hetperf
