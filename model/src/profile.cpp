// Platform profile reader and writer.
#include "hetperf/model/profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf {
namespace {

// Computers in one profile, "count" expanded: far beyond any cluster hetperf models, and small enough
// that a few bytes ("count": 1e7) cannot make the reader copy a computer for seconds into gigabytes.
constexpr std::int64_t kMaxComputers = 100'000;

nlohmann::json slowdown_to_json(const unimpp::SlowdownFunction& s) {
  nlohmann::json j = {{"knee_mb", s.main_memory_mb},
                      {"main", {{"kind", "linear"}, {"a_per_mb", s.main.a_per_mb}, {"b", s.main.b}}}};
  if (!s.virtual_table.empty()) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.virtual_table) points.push_back({{"occupied_mb", p.occupied_mb}, {"alpha", p.alpha}});
    j["virtual"] = {{"kind", "table"}, {"points", points}};
  } else if (s.virtual_memory) {
    j["virtual"] = {{"kind", "exponential"}, {"c", s.virtual_memory->c}, {"d_per_mb", s.virtual_memory->d_per_mb}};
  }
  return j;
}

unimpp::SlowdownFunction slowdown_from_json(const JsonNode& n, double main_memory_mb) {
  n.known_fields({"knee_mb", "main", "virtual"});
  unimpp::SlowdownFunction s;
  s.main_memory_mb = n.number_or("knee_mb", main_memory_mb, Range::kPositive);
  JsonNode main = n.object("main");
  main.known_fields({"kind", "a_per_mb", "b"});
  main.choice("kind", {"linear"});
  s.main.a_per_mb = main.number("a_per_mb");
  s.main.b = main.number("b");
  if (auto v = n.optional("virtual")) {
    if (v->choice("kind", {"exponential", "table"}) == "table") {
      v->known_fields({"kind", "points"});
      for (const JsonNode& p : v->array("points")) {
        p.known_fields({"occupied_mb", "alpha"});
        unimpp::SlowdownPoint point{p.number("occupied_mb", Range::kPositive), p.number("alpha")};
        const double previous = s.virtual_table.empty() ? s.main_memory_mb : s.virtual_table.back().occupied_mb;
        if (point.occupied_mb <= previous) {
          p.field("occupied_mb")
              .fail(s.virtual_table.empty() ? "an occupation above knee_mb (" + csv_number(s.main_memory_mb) + ")"
                                            : "occupations in strictly ascending order");
        }
        s.virtual_table.push_back(point);
      }
      if (s.virtual_table.empty()) v->field("points").fail("at least one point");
    } else {
      v->known_fields({"kind", "c", "d_per_mb"});
      s.virtual_memory = unimpp::ExponentialSlowdown{v->number("c", Range::kNonNegative), v->number("d_per_mb")};
    }
  }
  return s;
}

nlohmann::json regimes_to_json(const std::vector<MessageRegime>& regimes) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : regimes) {
    a.push_back(
        {{"min_size_bytes", r.min_size_bytes}, {"latency_s", r.latency_s}, {"seconds_per_byte", r.seconds_per_byte}});
  }
  return a;
}

std::vector<MessageRegime> regimes_from_json(const JsonNode& parent) {
  std::vector<MessageRegime> regimes;
  if (auto a = parent.optional("regimes")) {
    for (const JsonNode& r : a->items()) {
      r.known_fields({"min_size_bytes", "latency_s", "seconds_per_byte"});
      regimes.push_back({static_cast<std::uint64_t>(r.integer("min_size_bytes", 0, INT64_MAX)), r.number("latency_s"),
                         r.number("seconds_per_byte", Range::kNonNegative)});
      if (regimes.size() > 1 && regimes.back().min_size_bytes <= regimes[regimes.size() - 2].min_size_bytes) {
        r.field("min_size_bytes").fail("regimes in strictly ascending order of min_size_bytes");
      }
    }
  }
  return regimes;
}

nlohmann::json to_json(const EagerLimit& e) {
  nlohmann::json j = {{"bytes", e.bytes}};
  if (!e.source.empty()) j["source"] = e.source;
  return j;
}

EagerLimit eager_limit_from_json(const JsonNode& e) {
  e.known_fields({"bytes", "source"});
  return {static_cast<std::uint64_t>(e.integer("bytes", 0, INT64_MAX)), e.string_or("source", "")};
}

void communication_cpu_from_json(const JsonNode& cc, Computer& computer) {
  cc.known_fields({"per_send", "per_receive", "waiting", "handoff_s", "handoff_slice_s", "time_slice_s"});
  computer.cpu_share_per_send = cc.number_or("per_send", 0, Range::kFraction);
  computer.cpu_share_per_receive = cc.number_or("per_receive", 0, Range::kFraction);
  computer.cpu_share_waiting = cc.number_or("waiting", 0, Range::kFraction);
  computer.oversubscribed_handoff_s = cc.number_or("handoff_s", 0, Range::kNonNegative);
  // The bounds of the simulator's time-sliced cores (sim::SlicedCores), kept here: model/ does not see simulator/.
  auto slice = [&](const char* key, double& out) {
    if (!cc.has(key)) return;
    out = cc.number(key, Range::kPositive);
    if (out < TimeSliceMeasurement::kMinSliceS || out > TimeSliceMeasurement::kMaxSliceS) {
      cc.field(key).fail("a time slice of 1e-5 to 1 s");
    }
  };
  slice("handoff_slice_s", computer.handoff_slice_s);
  slice("time_slice_s", computer.time_slice_s);
}

}  // namespace

// Ages from 0, ascending, up to an hour; costs per page non-decreasing, at most 10 ms a page (far beyond
// a page fault from disk).
PageRetouch page_retouch_from_json(const JsonNode& n) {
  n.known_fields({"ages_s", "cost_per_page_s", "cap_s"});
  PageRetouch r;
  for (const JsonNode& a : n.array("ages_s", 1)) {
    const double age = a.as_number(Range::kNonNegative);
    const bool ascending = r.ages_s.empty() ? age == 0 : age > r.ages_s.back();
    if (!ascending || age > 3600) a.fail("ages ascending from 0 to at most 3600 s");
    r.ages_s.push_back(age);
  }
  // One value per age, non-decreasing with it, at most `most`.
  const auto per_age = [&](const char* key, std::size_t min_size, double most, const char* values, const char* one) {
    std::vector<double> out;
    for (const JsonNode& v : n.array(key, min_size)) {
      const double x = v.as_number(Range::kNonNegative);
      if (x > most || (!out.empty() && x < out.back())) v.fail(values);
      out.push_back(x);
    }
    if (out.size() != r.ages_s.size()) n.field(key).fail(one);
    return out;
  };
  r.cost_per_page_s = per_age("cost_per_page_s", 1, 0.01, "costs per page non-decreasing with the age, at most 0.01 s",
                              "one cost per age");
  if (n.has("cap_s"))
    r.cap_s = per_age("cap_s", 0, 10, "caps non-decreasing with the age, at most 10 s", "one cap per age");
  return r;
}

nlohmann::json to_json(const PageRetouch& r) {
  nlohmann::json j = {{"ages_s", r.ages_s}, {"cost_per_page_s", r.cost_per_page_s}};
  if (!r.cap_s.empty()) j["cap_s"] = r.cap_s;
  return j;
}

double RestClock::charge_s(const PageRetouch& r, std::string_view op, int m, int n, int iteration) {
  if (iteration != iteration_) {
    previous_s_ = longest_s_;
    longest_s_ = 0;
    iteration_ = iteration;
    pages_ = 0;
  }
  if ((op != "laswp" && op != "getrf") || r.ages_s.empty()) return 0;
  const double pages = std::max(0, n) * std::ceil(std::max(0, m) * 8.0 / 4096);
  const double seconds = r.charge_s(previous_s_, pages_, pages);
  pages_ += pages;
  return seconds;
}

namespace {
// Linear between the measured ages, held beyond the last.
double interpolated(const std::vector<double>& x, const std::vector<double>& y, double at) {
  if (x.empty()) return 0;
  const auto hi = std::upper_bound(x.begin(), x.end(), at);
  if (hi == x.begin()) return y.front();
  if (hi == x.end()) return y.back();
  const auto i = static_cast<std::size_t>(hi - x.begin());
  return y[i - 1] + (at - x[i - 1]) / (x[i] - x[i - 1]) * (y[i] - y[i - 1]);
}
}  // namespace

double PageRetouch::cost_at(double age_s) const { return interpolated(ages_s, cost_per_page_s, age_s); }
double PageRetouch::cap_at(double age_s) const {
  return cap_s.empty() ? std::numeric_limits<double>::infinity() : interpolated(ages_s, cap_s, age_s);
}

double PageRetouch::charge_s(double age_s, double before, double pages) const {
  const double cost = cost_at(age_s), cap = cap_at(age_s);
  if (!(cost > 0) || pages <= 0) return 0;
  if (!std::isfinite(cap)) return pages * cost;
  if (!(cap > 0)) return 0;
  const auto f = [&](double p) { return cap * -std::expm1(-p * cost / cap); };
  return f(before + pages) - f(before);
}

double KernelModel::time_s(double block) const {
  double t = 0;
  for (std::size_t k = 0; k < powers.size(); ++k) t += coefficients_s[k] * std::pow(block, powers[k]);
  return t;
}

std::optional<std::size_t> Profile::find(const std::string& name) const {
  for (std::size_t i = 0; i < computers.size(); ++i) {
    if (computers[i].name == name) return i;
  }
  return std::nullopt;
}

nlohmann::json to_json(const Profile& p) {
  nlohmann::json computers = nlohmann::json::array();
  for (const Computer& c : p.computers) {
    nlohmann::json j = {{"name", c.name},
                        {"cores", c.cores},
                        {"mips", c.mips},
                        {"main_memory_mb", c.main_memory_mb},
                        {"virtual_memory_mb", c.virtual_memory_mb}};
    // What was not measured is not written (a partial profile), rather than written as 0.
    if (c.disk_read_bytes_per_s > 0) j["disk_read_bytes_per_s"] = c.disk_read_bytes_per_s;
    if (c.disk_write_bytes_per_s > 0) j["disk_write_bytes_per_s"] = c.disk_write_bytes_per_s;
    if (c.disk_sync_latency_s > 0) j["disk_sync_latency_s"] = c.disk_sync_latency_s;
    if (p.network.bandwidth_bytes_per_s > 0) j["overhead_latency_s"] = c.overhead_latency_s;
    if (!c.group.empty()) j["group"] = c.group;
    if (c.core_efficiency != 1) j["core_efficiency"] = c.core_efficiency;
    if (!c.concurrency_speed.empty()) j["concurrency_speed"] = c.concurrency_speed;
    if (c.page_retouch) j["page_retouch"] = to_json(*c.page_retouch);
    if (c.slowdown) j["slowdown"] = slowdown_to_json(*c.slowdown);
    if (c.cpu_share_per_send > 0 || c.cpu_share_per_receive > 0 || c.cpu_share_waiting > 0 ||
        c.oversubscribed_handoff_s > 0 || c.handoff_slice_s > 0 || c.time_slice_s > 0) {
      j["communication_cpu"] = {{"per_send", c.cpu_share_per_send}, {"per_receive", c.cpu_share_per_receive}};
      if (c.cpu_share_waiting > 0) j["communication_cpu"]["waiting"] = c.cpu_share_waiting;
      if (c.oversubscribed_handoff_s > 0) j["communication_cpu"]["handoff_s"] = c.oversubscribed_handoff_s;
      if (c.handoff_slice_s > 0) j["communication_cpu"]["handoff_slice_s"] = c.handoff_slice_s;
      if (c.time_slice_s > 0) j["communication_cpu"]["time_slice_s"] = c.time_slice_s;
    }
    if (c.local_eager_limit) j["local_eager_limit"] = to_json(*c.local_eager_limit);
    if (!c.fits.empty()) j["fits"] = c.fits;
    if (!c.kernels.empty()) {
      j["kernels"] = nlohmann::json::array();
      for (const auto& k : c.kernels) {
        j["kernels"].push_back(
            {{"kernel", k.kernel}, {"rows", k.rows}, {"powers", k.powers}, {"coefficients_s", k.coefficients_s}});
      }
    }
    if (c.integration_step_s) j["integration_step_s"] = *c.integration_step_s;
    if (!c.app_models.empty()) j["app_models"] = to_json(c.app_models);
    computers.push_back(j);
  }
  nlohmann::json provenance = nlohmann::json::array();
  for (const auto& e : p.provenance) {
    provenance.push_back(
        {{"file", e.file}, {"machine", e.machine}, {"measured_utc", e.measured_utc}, {"sha256", e.sha256}});
  }
  nlohmann::json network = {{"latency_s", p.network.latency_s},
                            {"bandwidth_bytes_per_s", p.network.bandwidth_bytes_per_s}};
  if (!p.network.fit.empty()) network["fit"] = p.network.fit;
  if (!p.network.regimes.empty()) network["regimes"] = regimes_to_json(p.network.regimes);
  if (const auto& r = p.network.redistribution) {
    network["redistribution"] = {{"latency_s", r->latency_s}, {"bandwidth_bytes_per_s", r->bandwidth_bytes_per_s}};
    if (!r->fit.empty()) network["redistribution"]["fit"] = r->fit;
  }
  if (const auto& b = p.network.send_buffer) {
    network["send_buffer"] = {{"bytes", b->bytes}};
    if (!b->fit.empty()) network["send_buffer"]["fit"] = b->fit;
  }
  if (p.network.eager_limit) network["eager_limit"] = to_json(*p.network.eager_limit);
  if (!p.network.pairs.empty()) {
    network["pairs"] = nlohmann::json::array();
    for (const auto& l : p.network.pairs) {
      nlohmann::json j = {
          {"hosts", l.hosts}, {"latency_s", l.latency_s}, {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s}};
      if (!l.regimes.empty()) j["regimes"] = regimes_to_json(l.regimes);
      if (!l.fit.empty()) j["fit"] = l.fit;
      network["pairs"].push_back(j);
    }
  }
  nlohmann::json root = {{"schema", "hetperf.profile/" + std::to_string(kProfileSchemaVersion)},
                         {"hetperf_version", p.hetperf_version.empty() ? kVersion : p.hetperf_version},
                         {"command", p.command},
                         {"created_utc", p.created_utc},
                         {"computers", computers},
                         {"provenance", provenance},
                         {"warnings", p.warnings}};
  if (p.network.bandwidth_bytes_per_s > 0) root["network"] = network;
  if (!p.description.empty()) root["description"] = p.description;
  if (!p.diagnostics.empty()) root["diagnostics"] = p.diagnostics;
  return root;
}

Profile profile_from_json(const nlohmann::json& j, const std::string& file) {
  JsonNode root(j, file);
  if (!root.is_object()) root.fail("a JSON object (a hetperf.profile file)");
  root.schema("profile", kProfileSchemaVersion);
  root.known_fields({"schema", "hetperf_version", "command", "created_utc", "description", "computers", "network",
                     "provenance", "warnings", "diagnostics", "placements"});
  if (root.optional("placements")) {
    root.field("placements")
        .fail(
            "no \"placements\": whole-run ratios per placement pattern belong to configurations, "
            "not to the computers (a profile of an older hetperf; calibrate it again)");
  }
  Profile p;
  p.file = file;
  p.description = root.string_or("description", "");
  p.hetperf_version = root.string_or("hetperf_version", "");
  p.command = root.string_or("command", "");
  p.created_utc = root.string_or("created_utc", "");
  std::set<std::string> names;
  for (const JsonNode& c : root.array("computers", 1)) {
    c.known_fields({"name",
                    "group",
                    "count",
                    "cores",
                    "mips",
                    "main_memory_mb",
                    "virtual_memory_mb",
                    "disk_read_bytes_per_s",
                    "disk_write_bytes_per_s",
                    "disk_sync_latency_s",
                    "overhead_latency_s",
                    "slowdown",
                    "fits",
                    "local_eager_limit",
                    "communication_cpu",
                    "kernels",
                    "integration_step_s",
                    "core_efficiency",
                    "concurrency_speed",
                    "page_retouch",
                    "app_models"});
    Computer computer;
    computer.json_path = c.path();
    computer.name = c.string("name");
    if (computer.name.empty()) c.field("name").fail("a non-empty name");
    computer.group = c.string_or("group", "");
    computer.cores = static_cast<int>(c.integer_or("cores", 1, 1, 1 << 20));
    computer.core_efficiency = c.number_or("core_efficiency", 1, Range::kFraction);
    if (auto speed = c.optional("concurrency_speed")) {
      for (const JsonNode& v : speed->items(1)) computer.concurrency_speed.push_back(v.as_number(Range::kPositive));
      if (computer.concurrency_speed.size() > static_cast<std::size_t>(computer.cores)) {
        c.field("concurrency_speed").fail("at most one speed per core (k = 1 .. cores)");
      }
    }
    if (computer.core_efficiency <= 0) c.field("core_efficiency").fail("a number in (0, 1]");
    if (auto r = c.optional("page_retouch")) computer.page_retouch = page_retouch_from_json(*r);
    computer.mips = c.number("mips", Range::kPositive);
    computer.main_memory_mb = c.number("main_memory_mb", Range::kPositive);
    computer.virtual_memory_mb = c.number_or("virtual_memory_mb", 0, Range::kNonNegative);
    // A partial profile lacks what was not measured: the disk figures, or (without a network) lo.
    // bind() refuses the workloads that need them, naming the field.
    if (c.has("disk_read_bytes_per_s"))
      computer.disk_read_bytes_per_s = c.number("disk_read_bytes_per_s", Range::kPositive);
    if (c.has("disk_write_bytes_per_s"))
      computer.disk_write_bytes_per_s = c.number("disk_write_bytes_per_s", Range::kPositive);
    computer.disk_sync_latency_s = c.number_or("disk_sync_latency_s", 0, Range::kNonNegative);
    if (root.has("network") || c.has("overhead_latency_s")) {
      computer.overhead_latency_s = c.number("overhead_latency_s", Range::kNonNegative);
    }
    // Upper bounds far beyond any machine (a core of 10^18 instructions per second, an exabyte per
    // second, 10^12 MB, 31,700 years): a simulation multiplies and adds these figures, and near the
    // largest double its sums overflow into infinities that no plausibility check can see.
    const auto at_most = [&](std::string_view key, double v, double max, const char* expected) {
      if (v > max) c.field(key).fail(expected);
    };
    at_most("mips", computer.mips, 1e12, "a positive number of MIPS up to 1e12");
    at_most("main_memory_mb", computer.main_memory_mb, 1e12, "a positive number of MB up to 1e12");
    if (c.has("virtual_memory_mb"))
      at_most("virtual_memory_mb", computer.virtual_memory_mb, 1e12, "a number of MB in [0, 1e12]");
    if (c.has("disk_read_bytes_per_s"))
      at_most("disk_read_bytes_per_s", computer.disk_read_bytes_per_s, 1e18, "a positive rate up to 1e18 bytes/s");
    if (c.has("disk_write_bytes_per_s"))
      at_most("disk_write_bytes_per_s", computer.disk_write_bytes_per_s, 1e18, "a positive rate up to 1e18 bytes/s");
    at_most("disk_sync_latency_s", computer.disk_sync_latency_s, 10, "a number of seconds in [0, 10]");
    if (c.has("overhead_latency_s"))
      at_most("overhead_latency_s", computer.overhead_latency_s, 1e12, "a number of seconds in [0, 1e12]");
    if (auto s = c.optional("slowdown")) computer.slowdown = slowdown_from_json(*s, computer.main_memory_mb);
    if (auto cc = c.optional("communication_cpu")) communication_cpu_from_json(*cc, computer);
    if (auto e = c.optional("local_eager_limit")) computer.local_eager_limit = eager_limit_from_json(*e);
    if (auto f = c.optional("fits")) computer.fits = f->value();
    if (auto kernels = c.optional("kernels")) {
      for (const JsonNode& k : kernels->items()) {
        k.known_fields({"kernel", "rows", "powers", "coefficients_s"});
        KernelModel model;
        model.kernel = k.choice("kernel", {"dgemm", "dtrsm", "dgetrf", "dlaswp"});
        model.rows = static_cast<std::uint64_t>(k.integer_or("rows", 0, 0, 1 << 30));
        for (const JsonNode& pw : k.array("powers", 1)) {
          double v = pw.as_number(Range::kNonNegative);
          if (v != std::floor(v) || v > 16) pw.fail("an integer power from 0 to 16");
          model.powers.push_back(static_cast<int>(v));
        }
        for (const JsonNode& cf : k.array("coefficients_s", 1)) model.coefficients_s.push_back(cf.as_number());
        if (model.coefficients_s.size() != model.powers.size()) {
          k.field("coefficients_s").fail("one coefficient per power (" + std::to_string(model.powers.size()) + ")");
        }
        for (const KernelModel& other : computer.kernels) {
          if (other.kernel == model.kernel && other.rows == model.rows) {
            k.field("rows").fail("one model per kernel and rows (" + model.kernel + " with rows " +
                                 std::to_string(model.rows) + " is given twice)");
          }
        }
        computer.kernels.push_back(std::move(model));
      }
    }
    if (c.has("integration_step_s")) computer.integration_step_s = c.number("integration_step_s", Range::kPositive);
    if (auto models = c.optional("app_models")) computer.app_models = app_models_from_json(*models);
    std::int64_t count = c.integer_or("count", 1, 1, kMaxComputers);
    if (p.computers.size() + static_cast<std::size_t>(count) > static_cast<std::size_t>(kMaxComputers)) {
      c.field(c.has("count") ? "count" : "name")
          .fail("at most " + std::to_string(kMaxComputers) + " computers in a profile in all (" +
                std::to_string(p.computers.size()) + " before this entry)");
    }
    for (std::int64_t k = 1; k <= count; ++k) {
      Computer copy = computer;
      if (c.has("count")) copy.name = computer.name + "-" + std::to_string(k);
      if (!names.insert(copy.name).second) c.field("name").fail("a name not used by another computer");
      p.computers.push_back(std::move(copy));
    }
  }
  // Without a network (not measured) no workload that sends messages binds to the profile.
  if (root.has("network")) {
    JsonNode net = root.object("network");
    net.known_fields({"latency_s", "bandwidth_bytes_per_s", "fit", "regimes", "pairs", "redistribution", "send_buffer",
                      "eager_limit"});
    p.network.latency_s = net.number("latency_s", Range::kNonNegative);
    p.network.bandwidth_bytes_per_s = net.number("bandwidth_bytes_per_s", Range::kPositive);
    // As the computers' figures: far beyond any network, and far below where sums overflow.
    if (p.network.latency_s > 1e12) net.field("latency_s").fail("a number of seconds in [0, 1e12]");
    if (p.network.bandwidth_bytes_per_s > 1e18)
      net.field("bandwidth_bytes_per_s").fail("a positive rate up to 1e18 bytes/s");
    if (auto f = net.optional("fit")) p.network.fit = f->value();
    p.network.regimes = regimes_from_json(net);
    if (auto r = net.optional("redistribution")) {
      r->known_fields({"latency_s", "bandwidth_bytes_per_s", "fit"});
      RedistributionModel m;
      m.latency_s = r->number("latency_s", Range::kNonNegative);
      m.bandwidth_bytes_per_s = r->number("bandwidth_bytes_per_s", Range::kPositive);
      if (auto f = r->optional("fit")) m.fit = f->value();
      p.network.redistribution = std::move(m);
    }
    if (auto b = net.optional("send_buffer")) {
      b->known_fields({"bytes", "fit"});
      SendBuffer buffer;
      buffer.bytes = b->number("bytes", Range::kNonNegative);
      if (auto f = b->optional("fit")) buffer.fit = f->value();
      p.network.send_buffer = std::move(buffer);
    }
    if (auto e = net.optional("eager_limit")) p.network.eager_limit = eager_limit_from_json(*e);
    if (auto pairs = net.optional("pairs")) {
      for (const JsonNode& l : pairs->items()) {
        l.known_fields({"hosts", "latency_s", "bandwidth_bytes_per_s", "regimes", "fit"});
        LinkModel link;
        for (const JsonNode& h : l.array("hosts", 2)) link.hosts.push_back(h.as_string());
        if (link.hosts.size() != 2) l.field("hosts").fail("two host names");
        link.latency_s = l.number("latency_s", Range::kNonNegative);
        link.bandwidth_bytes_per_s = l.number("bandwidth_bytes_per_s", Range::kPositive);
        link.regimes = regimes_from_json(l);
        if (auto f = l.optional("fit")) link.fit = f->value();
        p.network.pairs.push_back(std::move(link));
      }
    }
  }
  if (auto prov = root.optional("provenance")) {
    for (const JsonNode& e : prov->items()) {
      e.known_fields({"file", "machine", "measured_utc", "sha256"});
      p.provenance.push_back({e.string_or("file", ""), e.string_or("machine", ""), e.string_or("measured_utc", ""),
                              e.string_or("sha256", "")});
    }
  }
  if (auto w = root.optional("warnings")) {
    for (const JsonNode& x : w->items()) p.warnings.push_back(x.as_string());
  }
  if (auto d = root.optional("diagnostics")) {
    if (!d->is_object())
      d->fail("an object (what calibration measured against its models; never read by a prediction)");
    p.diagnostics = d->value();
  }
  return p;
}

Profile read_profile(const std::filesystem::path& path) {
  return profile_from_json(read_json_file(path), path.string());
}

}  // namespace hetperf
