// Parallel jobs for the batch scheduler: reader and writer of a workload's "jobs".
#include "hetperf/model/batch_jobs.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf {
namespace {

constexpr std::int64_t kMaxCount = 100'000'000;
constexpr std::int64_t kMaxIterations = 1'000'000'000;

std::int64_t as_count(const JsonNode& n) {
  const auto& v = n.value();
  if (!v.is_number() || !std::isfinite(v.get<double>()) || std::floor(v.get<double>()) != v.get<double>() ||
      v.get<double>() < 1 || v.get<double>() > static_cast<double>(kMaxCount)) {
    n.fail("a processor count (an integer in [1, " + std::to_string(kMaxCount) + "])");
  }
  return static_cast<std::int64_t>(v.get<double>());
}

BatchAppModel app_from_json(const JsonNode& n) {
  BatchAppModel app;
  const std::string kind = n.choice("kind", {"table", "lu", "integrate"});
  if (kind == "lu") {
    n.known_fields({"kind", "n", "r", "variant", "window", "iterations"});
    app.kind = BatchAppModel::Kind::kLu;
    app.lu = lu_from_json(n, 1);
  } else if (kind == "integrate") {
    n.known_fields({"kind", "steps", "message_bytes", "disk_bytes", "iterations"});
    app.kind = BatchAppModel::Kind::kIntegrate;
    n.integer("steps", 1, INT64_MAX);  // required here: no per-worker default makes sense for a shared total
    app.integrate = integrate_from_json(n);
  } else {
    n.known_fields({"kind", "iterations", "iteration_time_s"});
    JsonNode table = n.object("iteration_time_s");
    std::map<std::int64_t, std::string> keys;  // count -> the key that gave it
    for (const auto& [key, value] : table.value().items()) {
      std::int64_t p = 0;
      auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), p);
      if (ec != std::errc() || end != key.data() + key.size() || p < 1 || p > kMaxCount) {
        throw InputError(table.file() + ": " + table.path() +
                         ": expected processor counts (integers >= 1) as keys, got \"" + key + "\"");
      }
      // "8" and "08" name one count: a second entry would silently replace the first.
      if (const auto seen = keys.find(p); seen != keys.end()) {
        throw InputError(table.file() + ": " + table.path() + "." + key + ": processor count " + std::to_string(p) +
                         " is already given as \"" + seen->second + "\"; expected each count once");
      }
      keys.emplace(p, key);
      app.iteration_time_s[p] = JsonNode(value, table.file(), table.path() + "." + key).as_number(Range::kPositive);
    }
    if (app.iteration_time_s.empty()) table.fail("at least one processor count with its iteration time");
  }
  app.iterations = n.integer_or("iterations", 1, 1, kMaxIterations);
  return app;
}

// A table given in the file must know the time of every count the job may start with; a table
// simulated from an application is checked after it is made (check_tabulated_counts).
void require_supported(const BatchAppModel& app, std::int64_t p, const JsonNode& where) {
  if (app.kind == BatchAppModel::Kind::kTable && !app.supports(p)) {
    where.fail("a processor count listed in app.iteration_time_s");
  }
}

ResizeSpec resize_from_json(const JsonNode& n) {
  n.known_fields({"topology", "problem_size", "min_processors", "max_processors", "data_bytes", "redistribution_s",
                  "redistribution_cost", "remove", "min_efficiency"});
  ResizeSpec r;
  std::string topology = n.choice_or("topology", "any", {"any", "divides", "nearly_square"});
  r.topology = topology == "any"       ? ResizeTopology::kAny
               : topology == "divides" ? ResizeTopology::kDivides
                                       : ResizeTopology::kNearlySquare;
  if (r.topology != ResizeTopology::kAny) r.problem_size = n.integer("problem_size", 1, 1'000'000'000'000);
  r.min_processors = n.integer_or("min_processors", 1, 1, kMaxCount);
  r.max_processors = n.integer_or("max_processors", 0, 0, kMaxCount);
  r.data_bytes = n.number_or("data_bytes", 0, Range::kNonNegative);
  if (n.has("redistribution_s")) r.redistribution_s = n.number("redistribution_s", Range::kNonNegative);
  if (auto cost = n.optional("redistribution_cost")) {
    cost->known_fields({"latency_s", "bandwidth_bytes_per_s"});
    r.redistribution_latency_s = cost->number("latency_s", Range::kNonNegative);
    r.redistribution_bandwidth_bytes_per_s = cost->number("bandwidth_bytes_per_s", Range::kPositive);
  }
  if (auto remove = n.optional("remove")) {
    remove->known_fields({"after_iteration", "processors"});
    r.remove_after_iteration = remove->integer("after_iteration", 1, kMaxIterations);
    r.remove_processors = remove->integer("processors", 1, kMaxCount);
  }
  if (n.has("min_efficiency")) r.min_efficiency = n.number("min_efficiency", Range::kFraction);
  return r;
}

BatchJob batch_job_from_json(const JsonNode& n, std::size_t index) {
  if (!n.is_object()) n.fail("a job object");
  n.known_fields({"name", "type", "submit_s", "processors", "run_time_s", "requested_time_s", "app", "resize"});
  BatchJob job;
  job.id = static_cast<std::int64_t>(index) + 1;
  job.where = n.file() + ": " + n.path();
  job.name = n.string_or("name", "job-" + std::to_string(job.id));
  std::string type = n.choice_or("type", "rigid", {"rigid", "moldable", "malleable"});
  job.kind = type == "rigid"      ? BatchJobKind::kRigid
             : type == "moldable" ? BatchJobKind::kMoldable
                                  : BatchJobKind::kMalleable;
  job.submit_s = n.number_or("submit_s", 0, Range::kNonNegative);
  if (n.has("requested_time_s")) job.requested_time_s = n.number("requested_time_s", Range::kPositive);
  if (auto app = n.optional("app")) job.app = app_from_json(*app);
  if (n.has("resize") && job.kind != BatchJobKind::kMalleable)
    n.field("resize").fail("no resize settings on a " + type + " job");

  JsonNode processors = n.field("processors");
  switch (job.kind) {
    case BatchJobKind::kRigid:
      job.processors = as_count(processors);
      if (n.has("run_time_s") == job.app.has_value()) n.fail("a rigid job with exactly one of run_time_s and app");
      if (n.has("run_time_s"))
        job.run_time_s = n.number("run_time_s", Range::kNonNegative);
      else
        require_supported(*job.app, job.processors, processors);
      break;
    case BatchJobKind::kMoldable: {
      if (!job.app) n.fail("a moldable job with an app model (\"app\")");
      if (n.has("run_time_s")) n.field("run_time_s").fail("no run_time_s on a moldable job (times come from app)");
      std::set<std::int64_t> counts;
      for (const auto& item : processors.items(1)) {
        std::int64_t p = as_count(item);
        require_supported(*job.app, p, item);
        counts.insert(p);
      }
      job.allowed.assign(counts.begin(), counts.end());
      break;
    }
    case BatchJobKind::kMalleable:
      if (!job.app) n.fail("a malleable job with an app model (\"app\")");
      if (n.has("run_time_s")) n.field("run_time_s").fail("no run_time_s on a malleable job (times come from app)");
      job.processors = as_count(processors);
      require_supported(*job.app, job.processors, processors);
      if (auto r = n.optional("resize")) job.resize = resize_from_json(*r);
      if (job.resize.max_processors != 0 && job.resize.max_processors < job.processors) {
        n.object("resize")
            .field("max_processors")
            .fail("at least the initial processors (" + std::to_string(job.processors) + ")");
      }
      // A resize of an LU job moves its matrix unless the workload says otherwise (ResizeSpec::data_bytes).
      if (job.app->kind == BatchAppModel::Kind::kLu && !job.resize.redistribution_s &&
          !(n.has("resize") && n.object("resize").has("data_bytes"))) {
        job.resize.data_bytes = 8.0 * job.app->lu.n * job.app->lu.n;
      }
      break;
  }
  return job;
}

nlohmann::json app_to_json(const BatchAppModel& app) {
  nlohmann::json j;
  switch (app.kind) {
    case BatchAppModel::Kind::kTable: {
      nlohmann::json table = nlohmann::json::object();
      for (const auto& [p, t] : app.iteration_time_s) table[std::to_string(p)] = t;
      j = {{"kind", "table"}, {"iteration_time_s", table}};
      break;
    }
    case BatchAppModel::Kind::kLu:
      j = lu_to_json(app.lu);
      j["kind"] = "lu";
      break;
    case BatchAppModel::Kind::kIntegrate:
      j = {{"kind", "integrate"},
           {"steps", app.integrate.steps},
           {"message_bytes", app.integrate.message_bytes},
           {"disk_bytes", app.integrate.disk_bytes}};
      break;
  }
  j["iterations"] = app.iterations;
  return j;
}

nlohmann::json resize_to_json(const ResizeSpec& r) {
  const char* topology = r.topology == ResizeTopology::kAny       ? "any"
                         : r.topology == ResizeTopology::kDivides ? "divides"
                                                                  : "nearly_square";
  nlohmann::json j = {{"topology", topology},
                      {"min_processors", r.min_processors},
                      {"max_processors", r.max_processors},
                      {"data_bytes", r.data_bytes}};
  if (r.topology != ResizeTopology::kAny) j["problem_size"] = r.problem_size;
  if (r.redistribution_s) j["redistribution_s"] = *r.redistribution_s;
  if (r.redistribution_bandwidth_bytes_per_s) {
    j["redistribution_cost"] = {{"latency_s", *r.redistribution_latency_s},
                                {"bandwidth_bytes_per_s", *r.redistribution_bandwidth_bytes_per_s}};
  }
  if (r.remove_after_iteration) {
    j["remove"] = {{"after_iteration", *r.remove_after_iteration}, {"processors", r.remove_processors}};
  }
  if (r.min_efficiency) j["min_efficiency"] = *r.min_efficiency;
  return j;
}

}  // namespace

const char* to_string(BatchJobKind kind) {
  switch (kind) {
    case BatchJobKind::kRigid:
      return "rigid";
    case BatchJobKind::kMoldable:
      return "moldable";
    case BatchJobKind::kMalleable:
      return "malleable";
  }
  return "rigid";
}

double BatchJob::run_time_at(std::int64_t p) const {
  if (run_time_s) return *run_time_s;
  HETPERF_CHECK(app && app->supports(p), "job " + name + " has no time for " + std::to_string(p) + " processors");
  return static_cast<double>(app->iterations) * app->time_s(p);
}

std::vector<std::int64_t> BatchJob::start_options() const {
  return kind == BatchJobKind::kMoldable ? allowed : std::vector<std::int64_t>{processors};
}

std::vector<BatchJob> batch_jobs_from_json(const JsonNode& jobs) {
  std::vector<BatchJob> out;
  auto items = jobs.items(1);
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) out.push_back(batch_job_from_json(items[i], i));
  return out;
}

nlohmann::json to_json(const BatchJob& job) {
  nlohmann::json j = {{"name", job.name}, {"type", to_string(job.kind)}, {"submit_s", job.submit_s}};
  if (job.kind == BatchJobKind::kMoldable)
    j["processors"] = job.allowed;
  else
    j["processors"] = job.processors;
  if (job.run_time_s) j["run_time_s"] = *job.run_time_s;
  if (job.requested_time_s) j["requested_time_s"] = *job.requested_time_s;
  if (job.app) j["app"] = app_to_json(*job.app);
  if (job.kind == BatchJobKind::kMalleable) j["resize"] = resize_to_json(job.resize);
  return j;
}

void check_tabulated_counts(const BatchJob& job) {
  if (!job.app || job.app->kind == BatchAppModel::Kind::kTable) return;
  const auto& table = job.app->iteration_time_s;
  HETPERF_CHECK(!table.empty(), "job " + job.name + ": the application model was not tabulated");
  for (std::int64_t p : job.start_options()) {
    if (job.app->supports(p)) continue;
    throw InputError(job.where + ".processors: expected processor counts the application model was simulated on (" +
                     std::to_string(table.begin()->first) + " to " + std::to_string(table.rbegin()->first) +
                     " on this platform), got " + std::to_string(p));
  }
}

}  // namespace hetperf
