// Parallel jobs: validation of the workload's "jobs" array, conversion of SWF records.
#include "hetperf/simulator/batch/job.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf::sim::batch {
namespace {

constexpr std::int64_t kMaxCount = 100'000'000;

std::int64_t as_count(const JsonNode& n) {
  const auto& v = n.value();
  if (!v.is_number() || !std::isfinite(v.get<double>()) || std::floor(v.get<double>()) != v.get<double>() ||
      v.get<double>() < 1 || v.get<double>() > static_cast<double>(kMaxCount)) {
    n.fail("a processor count (an integer in [1, " + std::to_string(kMaxCount) + "])");
  }
  return static_cast<std::int64_t>(v.get<double>());
}

AppModel app_from_json(const JsonNode& n) {
  AppModel app;
  app.kind = n.choice("kind", {"table"});
  n.known_fields({"kind", "iterations", "iteration_time_s"});
  app.iterations = n.integer_or("iterations", 1, 1, 1'000'000'000);
  JsonNode table = n.object("iteration_time_s");
  for (const auto& [key, value] : table.value().items()) {
    std::int64_t p = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), p);
    if (ec != std::errc() || end != key.data() + key.size() || p < 1 || p > kMaxCount) {
      throw InputError(table.file() + ": " + table.path() +
                       ": expected processor counts (integers >= 1) as keys, got \"" + key + "\"");
    }
    app.iteration_time_s[p] = JsonNode(value, table.file(), table.path() + "." + key).as_number(Range::kPositive);
  }
  if (app.iteration_time_s.empty()) table.fail("at least one processor count with its iteration time");
  return app;
}

// The app model must know the time of every count the job may use.
void require_supported(const AppModel& app, std::int64_t p, const JsonNode& where) {
  if (!app.supports(p)) where.fail("a processor count listed in app.iteration_time_s");
}

ResizeSpec resize_from_json(const JsonNode& n) {
  n.known_fields({"topology", "problem_size", "min_processors", "max_processors", "data_bytes",
                  "redistribution_s", "remove", "min_efficiency"});
  ResizeSpec r;
  std::string topology = n.choice_or("topology", "any", {"any", "divides", "nearly_square"});
  r.topology = topology == "any" ? Topology::kAny : topology == "divides" ? Topology::kDivides : Topology::kNearlySquare;
  if (r.topology != Topology::kAny) r.problem_size = n.integer("problem_size", 1, 1'000'000'000'000);
  r.min_processors = n.integer_or("min_processors", 1, 1, kMaxCount);
  r.max_processors = n.integer_or("max_processors", 0, 0, kMaxCount);
  r.data_bytes = n.number_or("data_bytes", 0, Range::kNonNegative);
  if (n.has("redistribution_s")) r.redistribution_s = n.number("redistribution_s", Range::kNonNegative);
  if (auto remove = n.optional("remove")) {
    remove->known_fields({"after_iteration", "processors"});
    r.remove_after_iteration = remove->integer("after_iteration", 1, 1'000'000'000);
    r.remove_processors = remove->integer("processors", 1, kMaxCount);
  }
  if (n.has("min_efficiency")) r.min_efficiency = n.number("min_efficiency", Range::kFraction);
  return r;
}

JobSpec job_from_json(const JsonNode& n, std::size_t index) {
  if (!n.is_object()) n.fail("a job object");
  n.known_fields({"name", "type", "submit_s", "processors", "run_time_s", "requested_time_s", "app", "resize"});
  JobSpec job;
  job.id = static_cast<std::int64_t>(index) + 1;
  job.where = n.file() + ": " + n.path();
  job.name = n.string_or("name", "job-" + std::to_string(job.id));
  std::string type = n.choice_or("type", "rigid", {"rigid", "moldable", "malleable"});
  job.kind = type == "rigid" ? JobKind::kRigid : type == "moldable" ? JobKind::kMoldable : JobKind::kMalleable;
  job.submit_s = n.number_or("submit_s", 0, Range::kNonNegative);
  if (n.has("requested_time_s")) job.requested_time_s = n.number("requested_time_s", Range::kPositive);
  if (auto app = n.optional("app")) job.app = app_from_json(*app);
  if (n.has("resize") && job.kind != JobKind::kMalleable) n.field("resize").fail("no resize settings on a " + type + " job");

  JsonNode processors = n.field("processors");
  switch (job.kind) {
    case JobKind::kRigid:
      job.processors = as_count(processors);
      if (n.has("run_time_s") == job.app.has_value()) n.fail("a rigid job with exactly one of run_time_s and app");
      if (n.has("run_time_s")) job.run_time_s = n.number("run_time_s", Range::kNonNegative);
      else require_supported(*job.app, job.processors, processors);
      break;
    case JobKind::kMoldable: {
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
    case JobKind::kMalleable:
      if (!job.app) n.fail("a malleable job with an app model (\"app\")");
      if (n.has("run_time_s")) n.field("run_time_s").fail("no run_time_s on a malleable job (times come from app)");
      job.processors = as_count(processors);
      require_supported(*job.app, job.processors, processors);
      if (auto r = n.optional("resize")) job.resize = resize_from_json(*r);
      if (job.resize.max_processors != 0 && job.resize.max_processors < job.processors) {
        n.object("resize").field("max_processors").fail("at least the initial processors (" +
                                                        std::to_string(job.processors) + ")");
      }
      break;
  }
  return job;
}

bool divides(std::int64_t d, std::int64_t n) { return d >= 1 && n % d == 0; }

// Seed 002 section 3.1: "additional processors are added to the smallest row or column of the
// existing topology", each side dividing the problem size (Table 2: 2x2, 2x3, 3x3, 3x4, ...).
std::vector<std::int64_t> nearly_square_sequence(std::int64_t p0, std::int64_t n, std::int64_t limit) {
  std::int64_t rows = 0;
  for (std::int64_t r = 1; r * r <= p0; ++r) {
    if (p0 % r == 0 && divides(r, n) && divides(p0 / r, n)) rows = r;
  }
  if (rows == 0) return {p0};  // the start is not a grid of the problem: it stays where it is
  std::int64_t cols = p0 / rows;
  std::vector<std::int64_t> out{p0};
  while (true) {
    std::int64_t next = rows + 1;
    while (next <= limit && !divides(next, n)) ++next;
    if (next * cols > limit) break;
    rows = next;
    if (rows > cols) std::swap(rows, cols);
    out.push_back(rows * cols);
  }
  return out;
}

}  // namespace

const char* to_string(JobKind kind) {
  switch (kind) {
    case JobKind::kRigid: return "rigid";
    case JobKind::kMoldable: return "moldable";
    case JobKind::kMalleable: return "malleable";
  }
  return "rigid";
}

double JobSpec::run_time_at(std::int64_t p) const {
  if (run_time_s) return *run_time_s;
  HETPERF_CHECK(app && app->supports(p), "job " + name + " has no time for " + std::to_string(p) + " processors");
  return static_cast<double>(app->iterations) * app->time_s(p);
}

std::vector<std::int64_t> JobSpec::start_options() const {
  return kind == JobKind::kMoldable ? allowed : std::vector<std::int64_t>{processors};
}

std::vector<std::int64_t> resize_configurations(const JobSpec& job) {
  if (job.kind != JobKind::kMalleable) return {job.processors};
  const ResizeSpec& r = job.resize;
  std::int64_t limit = r.max_processors > 0 ? r.max_processors : job.app->iteration_time_s.rbegin()->first;
  std::vector<std::int64_t> out;
  if (r.topology == Topology::kNearlySquare) {
    for (std::int64_t p : nearly_square_sequence(job.processors, r.problem_size, limit)) {
      if (job.app->supports(p)) out.push_back(p);
    }
    return out;
  }
  for (const auto& [p, t] : job.app->iteration_time_s) {
    if (p != job.processors && (p < r.min_processors || p > limit)) continue;
    if (p != job.processors && r.topology == Topology::kDivides && !divides(p, r.problem_size)) continue;
    out.push_back(p);
  }
  return out;
}

std::vector<JobSpec> jobs_from_json(const JsonNode& jobs) {
  std::vector<JobSpec> out;
  auto items = jobs.items();
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) out.push_back(job_from_json(items[i], i));
  return out;
}

nlohmann::json to_json(const JobSpec& job) {
  nlohmann::json j = {{"id", job.id}, {"name", job.name}, {"type", to_string(job.kind)}, {"submit_s", job.submit_s}};
  if (job.kind == JobKind::kMoldable) j["processors"] = job.allowed;
  else j["processors"] = job.processors;
  if (job.run_time_s) j["run_time_s"] = *job.run_time_s;
  if (job.requested_time_s) j["requested_time_s"] = *job.requested_time_s;
  return j;
}

std::vector<JobSpec> jobs_from_swf(const SwfTrace& trace, std::vector<SkippedJob>& skipped) {
  std::vector<JobSpec> out;
  out.reserve(trace.records.size());
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    const SwfRecord& r = trace.records[i];
    JobSpec job;
    job.id = static_cast<std::int64_t>(r.get(kJobNumber));
    job.name = "job-" + std::to_string(job.id);
    job.where = trace.file + ":" + std::to_string(r.line);
    double procs = r.get(kAllocatedProcs) >= 1 ? r.get(kAllocatedProcs) : r.get(kRequestedProcs);
    if (procs < 1) {
      skipped.push_back({job.id, job.name, job.where, "no processor count (fields 5 and 8 are missing)"});
      continue;
    }
    if (r.missing(kRunTime)) {
      skipped.push_back({job.id, job.name, job.where, "no run time (field 4 is missing)"});
      continue;
    }
    job.kind = JobKind::kRigid;
    job.submit_s = std::max(0.0, r.get(kSubmitTime));
    job.processors = static_cast<std::int64_t>(procs);
    job.run_time_s = r.get(kRunTime);
    if (r.get(kRequestedTime) > 0) job.requested_time_s = r.get(kRequestedTime);
    job.swf_record = i;
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace hetperf::sim::batch
