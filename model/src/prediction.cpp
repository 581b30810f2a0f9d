// Prediction result reader and writer.
#include "hetperf/model/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/json_text.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf {

PredictionSummary summarize_responses(const std::vector<ProcessResult>& processes) {
  if (processes.empty()) return {};
  std::vector<double> r;
  r.reserve(processes.size());
  double first_arrival = processes.front().arrival_s, last_finish = 0;
  for (const auto& p : processes) {
    r.push_back(p.response_s);
    first_arrival = std::min(first_arrival, p.arrival_s);
    last_finish = std::max(last_finish, p.finish_s);
  }
  return summarize_response_times(r, first_arrival, last_finish);
}

PredictionSummary summarize_response_times(std::vector<double>& r, double first_arrival_s, double last_finish_s) {
  PredictionSummary s;
  s.processes = r.size();
  if (r.empty()) return s;
  std::sort(r.begin(), r.end());  // a fixed order of summation: the mean is the same however r came
  s.mean_response_s = std::accumulate(r.begin(), r.end(), 0.0) / static_cast<double>(r.size());
  s.p95_response_s = quantile_nearest_rank(r, 0.95);
  const Percentiles q = percentiles(r);
  s.median_response_s = q.median;
  s.p90_response_s = q.p90;
  s.p99_response_s = q.p99;
  s.max_response_s = q.max;
  s.makespan_s = last_finish_s - first_arrival_s;
  return s;
}

nlohmann::json process_json(const ProcessResult& r) {
  const auto& b = r.breakdown;
  nlohmann::json j = {{"name", r.name},
                      {"computer", r.computer},
                      {"arrival_s", r.arrival_s},
                      {"start_s", r.start_s},
                      {"finish_s", r.finish_s},
                      {"response_s", r.response_s},
                      {"breakdown_s",
                       {{"cpu", b.cpu_s},
                        {"memory", b.memory_s},
                        {"disk", b.disk_s},
                        {"network", b.network_s},
                        {"sleep", b.sleep_s},
                        {"waiting", b.waiting_s}}}};
  if (b.migration_s > 0) j["breakdown_s"]["migration"] = b.migration_s;
  if (!r.segments.empty()) {
    nlohmann::json segments = nlohmann::json::array();
    for (const auto& g : r.segments)
      segments.push_back({{"computer", g.computer}, {"from_s", g.from_s}, {"to_s", g.to_s}});
    j["segments"] = segments;
  }
  return j;
}

void append_process_json_row(std::string& out, const ProcessResult& r, std::uint64_t index, const std::string& file) {
  // process_json's fields, keys in the sorted order nlohmann writes them in.
  const auto& b = r.breakdown;
  const std::size_t start = out.size();
  JsonText w(out, 2);
  w.begin_object().key("arrival_s").value(r.arrival_s).key("breakdown_s").begin_object();
  w.key("cpu").value(b.cpu_s).key("disk").value(b.disk_s).key("memory").value(b.memory_s);
  if (b.migration_s > 0) w.key("migration").value(b.migration_s);
  w.key("network").value(b.network_s).key("sleep").value(b.sleep_s).key("waiting").value(b.waiting_s).end_object();
  w.key("computer").value(r.computer).key("finish_s").value(r.finish_s).key("name").value(r.name);
  w.key("response_s").value(r.response_s);
  if (!r.segments.empty()) {
    w.key("segments").begin_array();
    for (const auto& g : r.segments) {
      w.begin_object()
          .key("computer")
          .value(g.computer)
          .key("from_s")
          .value(g.from_s)
          .key("to_s")
          .value(g.to_s)
          .end_object();
    }
    w.end_array();
  }
  w.key("start_s").value(r.start_s).end_object();
  if (!w.finite()) {
    out.resize(start);
    check_finite_output(process_json(r), file, "$.processes[" + std::to_string(index) + "]");
  }
}

nlohmann::json to_json(const Prediction& p) {
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& r : p.processes) processes.push_back(process_json(r));
  nlohmann::json computers = nlohmann::json::array();
  for (const auto& c : p.computers) {
    computers.push_back({{"name", c.name},
                         {"busy_s", c.busy_s},
                         {"utilisation", c.utilisation},
                         {"peak_memory_mb", c.peak_memory_mb},
                         {"processes", c.processes}});
    if (c.timeline.interval_s > 0) {
      computers.back()["timeline"] = {{"interval_s", c.timeline.interval_s},
                                      {"utilisation", c.timeline.utilisation},
                                      {"memory_mb", c.timeline.memory_mb}};
    }
  }
  const auto& s = p.summary;
  nlohmann::json j = {{"schema", "hetperf.prediction/" + std::to_string(kPredictionSchemaVersion)},
                      {"hetperf_version", p.hetperf_version.empty() ? kVersion : p.hetperf_version},
                      {"command", p.command},
                      {"platform_file", p.platform_file},
                      {"workload_file", p.workload_file},
                      {"workload_name", p.workload_name},
                      {"seed", p.seed},
                      {"placement", p.placement},
                      {"summary",
                       {{"processes", s.processes},
                        {"mean_response_s", s.mean_response_s},
                        {"median_response_s", s.median_response_s},
                        {"p90_response_s", s.p90_response_s},
                        {"p95_response_s", s.p95_response_s},
                        {"p99_response_s", s.p99_response_s},
                        {"max_response_s", s.max_response_s},
                        {"makespan_s", s.makespan_s},
                        {"events", s.events},
                        {"migrations", s.migrations}}},
                      {"computers", computers},
                      {"processes", processes}};
  if (!p.apps.empty()) j["apps"] = p.apps;
  if (!p.warnings.empty()) j["warnings"] = p.warnings;
  return j;
}

Prediction prediction_from_json(const nlohmann::json& j, const std::string& file) {
  JsonNode root(j, file);
  if (!root.is_object()) root.fail("a JSON object (a hetperf.prediction file)");
  root.schema("prediction", kPredictionSchemaVersion);
  root.known_fields({"schema", "hetperf_version", "command", "platform_file", "workload_file", "workload_name", "seed",
                     "placement", "summary", "computers", "processes", "apps", "warnings"});
  Prediction p;
  p.hetperf_version = root.string_or("hetperf_version", "");
  p.command = root.string_or("command", "");
  p.platform_file = root.string_or("platform_file", "");
  p.workload_file = root.string_or("workload_file", "");
  p.workload_name = root.string_or("workload_name", "");
  p.seed = static_cast<std::uint64_t>(root.integer_or("seed", 0, 0, INT64_MAX));
  p.placement = root.string_or("placement", "");
  for (const JsonNode& r : root.array("processes")) {
    r.known_fields({"name", "computer", "arrival_s", "start_s", "finish_s", "response_s", "breakdown_s", "segments"});
    ProcessResult pr;
    pr.name = r.string("name");
    pr.computer = r.string("computer");
    pr.arrival_s = r.number("arrival_s", Range::kNonNegative);
    pr.start_s = r.number("start_s", Range::kNonNegative);
    pr.finish_s = r.number("finish_s", Range::kNonNegative);
    pr.response_s = r.number("response_s", Range::kNonNegative);
    if (pr.finish_s < pr.start_s || pr.start_s < pr.arrival_s)
      r.field("finish_s").fail("arrival_s <= start_s <= finish_s");
    JsonNode b = r.object("breakdown_s");
    b.known_fields({"cpu", "memory", "disk", "network", "sleep", "waiting", "migration"});
    pr.breakdown = {b.number("cpu", Range::kNonNegative),
                    b.number("memory", Range::kNonNegative),
                    b.number("disk", Range::kNonNegative),
                    b.number("network", Range::kNonNegative),
                    b.number("sleep", Range::kNonNegative),
                    b.number("waiting", Range::kNonNegative),
                    b.number_or("migration", 0, Range::kNonNegative)};
    if (auto segments = r.optional("segments")) {
      for (const JsonNode& g : segments->items()) {
        g.known_fields({"computer", "from_s", "to_s"});
        pr.segments.push_back(
            {g.string("computer"), g.number("from_s", Range::kNonNegative), g.number("to_s", Range::kNonNegative)});
      }
    }
    p.processes.push_back(pr);
  }
  for (const JsonNode& c : root.array("computers")) {
    c.known_fields({"name", "busy_s", "utilisation", "peak_memory_mb", "processes", "timeline"});
    p.computers.push_back({c.string("name"),
                           c.number("busy_s", Range::kNonNegative),
                           c.number("utilisation", Range::kFraction),
                           c.number("peak_memory_mb", Range::kNonNegative),
                           static_cast<std::size_t>(c.integer("processes", 0, INT64_MAX)),
                           {}});
    if (auto t = c.optional("timeline")) {
      t->known_fields({"interval_s", "utilisation", "memory_mb"});
      ComputerTimeline& tl = p.computers.back().timeline;
      tl.interval_s = t->number("interval_s", Range::kPositive);
      for (const JsonNode& u : t->array("utilisation")) tl.utilisation.push_back(u.as_number(Range::kFraction));
      for (const JsonNode& m : t->array("memory_mb")) tl.memory_mb.push_back(m.as_number(Range::kNonNegative));
      if (tl.memory_mb.size() != tl.utilisation.size()) t->field("memory_mb").fail("as many points as utilisation");
    }
  }
  JsonNode s = root.object("summary");
  s.known_fields({"processes", "mean_response_s", "median_response_s", "p90_response_s", "p95_response_s",
                  "p99_response_s", "max_response_s", "makespan_s", "events", "migrations"});
  p.summary.processes = static_cast<std::size_t>(s.integer("processes", 0, INT64_MAX));
  p.summary.mean_response_s = s.number("mean_response_s", Range::kNonNegative);
  p.summary.median_response_s = s.number("median_response_s", Range::kNonNegative);
  p.summary.p95_response_s = s.number("p95_response_s", Range::kNonNegative);
  // Added later: older predictions lack them (read as 0).
  p.summary.p90_response_s = s.number_or("p90_response_s", 0, Range::kNonNegative);
  p.summary.p99_response_s = s.number_or("p99_response_s", 0, Range::kNonNegative);
  p.summary.max_response_s = s.number_or("max_response_s", 0, Range::kNonNegative);
  p.summary.makespan_s = s.number("makespan_s", Range::kNonNegative);
  p.summary.events = static_cast<std::uint64_t>(s.integer_or("events", 0, 0, INT64_MAX));
  p.summary.migrations = static_cast<std::uint64_t>(s.integer_or("migrations", 0, 0, INT64_MAX));
  if (auto apps = root.optional("apps")) {
    for (const JsonNode& a : apps->items()) {
      if (!a.is_object()) a.fail("an object {\"name\", \"app\", \"time_s\", ...}");
      a.string("name");
      a.choice("app", {"lu", "integrate"});
      a.number("time_s", Range::kNonNegative);
    }
    p.apps = apps->value();
  }
  if (auto warnings = root.optional("warnings")) {
    for (const JsonNode& w : warnings->items()) p.warnings.push_back(w.as_string());
  }
  return p;
}

Prediction read_prediction(const std::filesystem::path& path) {
  return prediction_from_json(read_json_file(path), path.string());
}

}  // namespace hetperf
