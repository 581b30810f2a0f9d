// Workload file reader and writer.
#include "hetperf/model/workload.hpp"

#include <map>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf {
namespace {

constexpr std::int64_t kMaxCount = 100'000'000;

Distribution quantity(const JsonNode& n, std::string_view key, Range range) {
  auto v = n.optional(key);
  return v ? distribution_from_json(*v, range) : Distribution::constant(0);
}

// {"ops": Q, "bytes_per_op": Q} or absent.
void io_from_json(const JsonNode& n, std::string_view key, Distribution& ops, Distribution& bytes) {
  if (auto io = n.optional(key)) {
    io->known_fields({"ops", "bytes_per_op"});
    ops = distribution_from_json(io->field("ops"), Range::kNonNegative);
    bytes = distribution_from_json(io->field("bytes_per_op"), Range::kNonNegative);
  }
}

ProcessSpec process_from_json(const JsonNode& n, bool is_template) {
  n.known_fields({"name", "count", "arrival_s", "computer", "mi", "static_memory_mb", "dynamic_memory_mb", "disk_read",
                  "disk_write", "messages", "sleep_s"});
  ProcessSpec p;
  p.json_path = n.path();
  p.name = n.string("name");
  if (p.name.empty()) n.field("name").fail("a non-empty name");
  if (is_template && (n.has("count") || n.has("arrival_s"))) {
    n.field(n.has("count") ? "count" : "arrival_s")
        .fail("no count or arrival_s in a generator's template (the generator sets them)");
  }
  p.count = n.integer_or("count", 1, 1, kMaxCount);
  p.arrival_s = n.number_or("arrival_s", 0, Range::kNonNegative);
  p.computer = n.string_or("computer", "");
  p.mi = distribution_from_json(n.field("mi"), Range::kNonNegative);
  p.static_memory_mb = quantity(n, "static_memory_mb", Range::kNonNegative);
  p.dynamic_memory_mb = quantity(n, "dynamic_memory_mb", Range::kNonNegative);
  io_from_json(n, "disk_read", p.disk_read_ops, p.disk_read_bytes);
  io_from_json(n, "disk_write", p.disk_write_ops, p.disk_write_bytes);
  if (auto m = n.optional("messages")) {
    m->known_fields({"count", "bytes", "receive_bytes", "send_bytes", "peer"});
    p.messages = distribution_from_json(m->field("count"), Range::kNonNegative);
    if (auto r = m->optional("receive_bytes")) p.receive_bytes = distribution_from_json(*r, Range::kNonNegative);
    if (auto s = m->optional("send_bytes")) p.send_bytes = distribution_from_json(*s, Range::kNonNegative);
    if (!m->has("bytes") && !(p.receive_bytes && p.send_bytes)) {
      m->field("bytes").fail("the bytes per message (or both receive_bytes and send_bytes)");
    }
    if (m->has("bytes")) p.message_bytes = distribution_from_json(m->field("bytes"), Range::kNonNegative);
    p.peer = m->string_or("peer", "");
  }
  p.sleep_s = quantity(n, "sleep_s", Range::kNonNegative);
  return p;
}

nlohmann::json process_to_json(const ProcessSpec& p, bool is_template) {
  nlohmann::json j = {{"name", p.name}, {"mi", to_json(p.mi)}};
  if (!is_template) {
    if (p.count != 1) j["count"] = p.count;
    j["arrival_s"] = p.arrival_s;
  }
  if (!p.computer.empty()) j["computer"] = p.computer;
  j["static_memory_mb"] = to_json(p.static_memory_mb);
  j["dynamic_memory_mb"] = to_json(p.dynamic_memory_mb);
  j["disk_read"] = {{"ops", to_json(p.disk_read_ops)}, {"bytes_per_op", to_json(p.disk_read_bytes)}};
  j["disk_write"] = {{"ops", to_json(p.disk_write_ops)}, {"bytes_per_op", to_json(p.disk_write_bytes)}};
  j["messages"] = {{"count", to_json(p.messages)}, {"bytes", to_json(p.message_bytes)}};
  if (p.receive_bytes) j["messages"]["receive_bytes"] = to_json(*p.receive_bytes);
  if (p.send_bytes) j["messages"]["send_bytes"] = to_json(*p.send_bytes);
  if (!p.peer.empty()) j["messages"]["peer"] = p.peer;
  j["sleep_s"] = to_json(p.sleep_s);
  return j;
}

}  // namespace

nlohmann::json to_json(const Workload& w) {
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : w.processes) processes.push_back(process_to_json(p, false));
  nlohmann::json generators = nlohmann::json::array();
  for (const auto& g : w.generators) {
    nlohmann::json j = {{"process", process_to_json(g.process, true)},
                        {"interarrival_s", to_json(g.interarrival_s)},
                        {"start_s", g.start_s}};
    if (g.count) j["count"] = *g.count;
    if (g.horizon_s) j["horizon_s"] = *g.horizon_s;
    generators.push_back(j);
  }
  nlohmann::json policy = {{"placement", w.policy.placement}};
  if (!w.policy.options.empty()) policy["options"] = w.policy.options;
  if (!w.policy.discipline.empty()) {
    if (w.policy.discipline.by_name.empty()) {
      policy["discipline"] = w.policy.discipline.default_discipline;
    } else {
      nlohmann::json d = {{"default", w.policy.discipline.default_discipline}};
      for (const auto& [name, value] : w.policy.discipline.by_name) d[name] = value;
      policy["discipline"] = d;
    }
  }
  if (const auto& lb = w.policy.load_balancer) {
    policy["load_balancer"] = {{"period_s", lb->period_s},
                               {"migration_cost_s", lb->migration_cost_s},
                               {"threshold", lb->threshold},
                               {"max_migrations", lb->max_migrations}};
  }
  nlohmann::json j = {{"schema", "hetperf.workload/" + std::to_string(kWorkloadSchemaVersion)},
                      {"name", w.name},
                      {"seed", w.seed},
                      {"policy", policy},
                      {"processes", processes}};
  if (!w.description.empty()) j["description"] = w.description;
  if (!w.generators.empty()) j["generators"] = generators;
  if (!w.jobs.empty()) {
    j["jobs"] = nlohmann::json::array();
    for (const auto& job : w.jobs) j["jobs"].push_back(to_json(job));
  }
  if (!w.apps.empty()) {
    j["apps"] = nlohmann::json::array();
    for (const auto& app : w.apps) j["apps"].push_back(to_json(app));
  }
  if (w.scheduler) j["scheduler"] = to_json(*w.scheduler);
  return j;
}

namespace {

// Results, CSV rows, message peers and pins name processes: two definitions with one name would make
// them ambiguous (a generator's "job" and a listed "job" both give "job-1").
void check_distinct_names(const Workload& w, const std::string& file) {
  std::map<std::string, std::string> seen;  // name -> JSON path of its definition
  auto check = [&](const std::string& name, const std::string& path) {
    auto [it, fresh] = seen.emplace(name, path);
    if (!fresh) {
      throw InputError(file + ": " + path + ".name: expected a name no other process has, got \"" +
                       (name.size() > 80 ? name.substr(0, 77) + "..." : name) + "\" (also the name of " + it->second +
                       ")");
    }
  };
  for (const auto& p : w.processes) check(p.name, p.json_path);
  for (const auto& g : w.generators) check(g.process.name, g.json_path + ".process");
}

}  // namespace

Workload workload_from_json(const nlohmann::json& j, const std::string& file) {
  JsonNode root(j, file);
  if (!root.is_object()) root.fail("a JSON object (a hetperf.workload file)");
  root.schema("workload", kWorkloadSchemaVersion);
  root.known_fields(
      {"schema", "name", "description", "seed", "policy", "processes", "generators", "jobs", "scheduler", "apps"});
  Workload w;
  w.file = file;
  w.name = root.string_or("name", "");
  w.description = root.string_or("description", "");
  w.seed = static_cast<std::uint64_t>(root.integer_or("seed", 1, 0, INT64_MAX));
  if (auto policy = root.optional("policy")) {
    policy->known_fields({"placement", "options", "load_balancer", "discipline"});
    w.policy.placement = policy->string_or("placement", w.policy.placement);
    if (auto d = policy->optional("discipline")) {
      const std::initializer_list<std::string_view> kDisciplines = {"processor_sharing", "fifo"};
      if (d->value().is_string()) {
        w.policy.discipline.default_discipline = policy->choice("discipline", kDisciplines);
      } else if (d->is_object()) {
        for (const auto& [key, value] : d->value().items()) {
          std::string chosen = d->choice(key, kDisciplines);
          if (key == "default")
            w.policy.discipline.default_discipline = chosen;
          else
            w.policy.discipline.by_name.emplace_back(key, chosen);
        }
      } else {
        d->fail("\"processor_sharing\", \"fifo\", or an object {\"default\": ..., \"<computer or group>\": ...}");
      }
    }
    if (auto o = policy->optional("options")) {
      if (!o->is_object()) o->fail("an object of policy options");
      w.policy.options = o->value();
    }
    if (auto lb = policy->optional("load_balancer")) {
      if (!lb->is_object()) lb->fail("an object {\"period_s\": ..., \"migration_cost_s\": ..., \"threshold\": ...}");
      lb->known_fields({"period_s", "migration_cost_s", "threshold", "max_migrations"});
      LoadBalancerSpec b;
      b.period_s = lb->number("period_s", Range::kPositive);
      b.migration_cost_s = lb->number_or("migration_cost_s", b.migration_cost_s, Range::kNonNegative);
      b.threshold = lb->number_or("threshold", b.threshold, Range::kPositive);
      if (b.threshold < 1) lb->field("threshold").fail("a number >= 1 (an imbalance ratio)");
      b.max_migrations = lb->integer_or("max_migrations", b.max_migrations, 1, kMaxCount);
      w.policy.load_balancer = b;
    }
  }
  if (auto processes = root.optional("processes")) {
    for (const JsonNode& p : processes->items()) w.processes.push_back(process_from_json(p, false));
  }
  if (auto generators = root.optional("generators")) {
    for (const JsonNode& g : generators->items()) {
      g.known_fields({"process", "interarrival_s", "start_s", "count", "horizon_s"});
      ArrivalGenerator gen;
      gen.json_path = g.path();
      gen.process = process_from_json(g.object("process"), true);
      gen.interarrival_s = distribution_from_json(g.field("interarrival_s"), Range::kNonNegative);
      if (gen.interarrival_s.mean() <= 0) g.field("interarrival_s").fail("a positive mean inter-arrival time");
      gen.start_s = g.number_or("start_s", 0, Range::kNonNegative);
      if (g.has("count")) gen.count = g.integer("count", 1, kMaxCount);
      if (g.has("horizon_s")) gen.horizon_s = g.number("horizon_s", Range::kPositive);
      if (!gen.count && !gen.horizon_s) g.fail("an object with \"count\" or \"horizon_s\" (or both)");
      w.generators.push_back(gen);
    }
  }
  check_distinct_names(w, file);
  if (auto jobs = root.optional("jobs")) w.jobs = batch_jobs_from_json(*jobs);
  if (auto scheduler = root.optional("scheduler")) w.scheduler = batch_scheduler_from_json(*scheduler);
  if (auto apps = root.optional("apps")) w.apps = app_jobs_from_json(*apps);
  if (w.processes.empty() && w.generators.empty() && w.jobs.empty() && w.apps.empty()) {
    root.fail("a workload with at least one entry in \"processes\", \"generators\", \"jobs\" or \"apps\"");
  }
  return w;
}

Workload read_workload(const std::filesystem::path& path) {
  return workload_from_json(read_json_file(path), path.string());
}

}  // namespace hetperf
