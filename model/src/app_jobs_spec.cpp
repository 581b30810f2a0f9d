// Application jobs of a workload ("apps"): reader, writer and the LU options' rules.
#include "hetperf/model/app_jobs_spec.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "hetperf/model/json_node.hpp"

namespace hetperf {
namespace {

constexpr std::int64_t kMaxRanks = 1 << 20;

LuVariant lu_variant(const std::string& name) {
  return name == "pipelined"      ? LuVariant::kPipelined
         : name == "flow_control" ? LuVariant::kFlowControl
                                  : LuVariant::kBasic;
}

LuBcast lu_bcast(const std::string& name) {
  return name == "tree" ? LuBcast::kTree : name == "ring" ? LuBcast::kRing : LuBcast::kSequential;
}

RankMappingSpec mapping_from_json(const JsonNode& n, int ranks) {
  RankMappingSpec m;
  if (auto list = n.optional("computers")) {
    for (const JsonNode& c : list->items(1)) m.computers.push_back(c.as_string());
  }
  auto mapping = n.optional("mapping");
  if (mapping && mapping->value().is_array()) {
    auto items = mapping->items();
    if (items.size() != static_cast<std::size_t>(ranks)) {
      mapping->fail("one computer name per rank (" + std::to_string(ranks) + "), not " + std::to_string(items.size()));
    }
    m.rule = RankMappingSpec::Rule::kList;
    for (const JsonNode& item : items) m.ranks.push_back(item.as_string());
  } else {
    std::string rule = n.choice_or("mapping", "cyclic", {"cyclic", "block"});
    m.rule = rule == "cyclic" ? RankMappingSpec::Rule::kCyclic : RankMappingSpec::Rule::kBlock;
  }
  return m;
}

AppJobSpec app_job_from_json(const JsonNode& n, std::size_t index) {
  if (!n.is_object()) n.fail("an object {\"app\": \"lu\" | \"integrate\", ...}");
  AppJobSpec job;
  job.json_path = n.path();
  const std::string app = n.choice("app", {"lu", "integrate"});
  job.name = n.string_or("name", app + "-" + std::to_string(index));
  job.start_s = n.number_or("start_s", 0, Range::kNonNegative);
  if (app == "lu") {
    n.known_fields({"name", "app", "start_s", "ranks", "n", "r", "variant", "window", "remove", "expand", "bcast",
                    "parallel_multiply", "computers", "mapping"});
    job.kind = AppKind::kLu;
    job.ranks = static_cast<int>(n.integer("ranks", 1, kMaxRanks));
    job.lu = lu_from_json(n, job.ranks);
  } else {
    n.known_fields({"name", "app", "start_s", "instances", "ranks_per_instance", "a", "b", "steps", "message_bytes",
                    "disk_bytes", "computers", "mapping"});
    job.kind = AppKind::kIntegrate;
    job.instances = static_cast<int>(n.integer_or("instances", 1, 1, kMaxRanks));
    job.ranks = static_cast<int>(n.integer_or("ranks_per_instance", 2, 2, kMaxRanks));
    job.integrate = integrate_from_json(n);
  }
  if (static_cast<std::int64_t>(job.instances) * job.ranks > kMaxRanks) {
    n.field("instances")
        .fail("at most " + std::to_string(kMaxRanks) + " ranks in all (instances x ranks_per_instance)");
  }
  job.mapping = mapping_from_json(n, job.total_ranks());
  return job;
}

// The expansion's rules (lu_violation): some ranks must start, the join is at a resize point before
// the last iteration, and a removal comes after it.
std::optional<FieldViolation> expand_violation(const LuSpec& lu, int ranks) {
  if (lu.expand_ranks <= 0) return std::nullopt;
  if (lu.expand_ranks >= ranks) {
    return FieldViolation{"expand.ranks", "fewer ranks to join than the " + std::to_string(ranks) + " of the run"};
  }
  const int iterations = lu.n / lu.r;
  if (lu.expand_after_iteration < 0 || lu.expand_after_iteration >= iterations - 1) {
    return FieldViolation{"expand.after_iteration", "an iteration in [0, " + std::to_string(iterations - 2) +
                                                        "] (there are " + std::to_string(iterations) + " iterations)"};
  }
  if (lu.remove_ranks > 0 && lu.remove_after_iteration <= lu.expand_after_iteration) {
    return FieldViolation{"remove.after_iteration",
                          "an iteration after the expansion's (" + std::to_string(lu.expand_after_iteration) + ")"};
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(LuVariant v) {
  switch (v) {
    case LuVariant::kBasic:
      return "basic";
    case LuVariant::kPipelined:
      return "pipelined";
    case LuVariant::kFlowControl:
      return "flow_control";
  }
  return "basic";
}

const char* to_string(LuBcast b) {
  switch (b) {
    case LuBcast::kSequential:
      return "sequential";
    case LuBcast::kTree:
      return "tree";
    case LuBcast::kRing:
      return "ring";
  }
  return "sequential";
}

const char* to_string(AppKind kind) { return kind == AppKind::kLu ? "lu" : "integrate"; }

std::optional<FieldViolation> lu_violation(const LuSpec& lu, int ranks) {
  const std::string n = std::to_string(lu.n);
  if (lu.r > lu.n) return FieldViolation{"r", "a block width no larger than n = " + n};
  if (lu.r < 1 || lu.n % lu.r != 0) return FieldViolation{"r", "a block width that divides n = " + n};
  if (lu.remove_ranks > 0 && lu.remove_ranks >= ranks) {
    return FieldViolation{"remove.ranks", "fewer ranks to leave than the " + std::to_string(ranks) + " running"};
  }
  const int iterations = lu.n / lu.r;
  if (lu.remove_ranks > 0 && (lu.remove_after_iteration < 0 || lu.remove_after_iteration >= iterations - 1)) {
    return FieldViolation{"remove.after_iteration", "an iteration in [0, " + std::to_string(iterations - 2) +
                                                        "] (there are " + std::to_string(iterations) + " iterations)"};
  }
  if (auto v = expand_violation(lu, ranks)) return v;
  // PM (DPS paper section 6): r x r blocks split into S column blocks of r/S columns, each computed on
  // a different rank of those in the computation throughout (neither joining nor leaving).
  const int staying = ranks - std::max(0, lu.remove_ranks) - std::max(0, lu.expand_ranks);
  if (lu.parallel_multiply > 1 && lu.parallel_multiply > staying) {
    return FieldViolation{"parallel_multiply", "at most one sub-block per rank: no more than the " +
                                                   std::to_string(staying) + " ranks that stay"};
  }
  if (lu.parallel_multiply < 1 || lu.r % lu.parallel_multiply != 0) {
    return FieldViolation{"parallel_multiply", "a number of sub-blocks that divides r = " + std::to_string(lu.r)};
  }
  return std::nullopt;
}

double lu_simulated_operations(const LuSpec& lu, int ranks) {
  const double iterations = static_cast<double>(lu.n) / lu.r;
  return 4 * iterations * iterations + 10 * iterations * ranks;
}

LuSpec lu_from_json(const JsonNode& n, int ranks) {
  LuSpec lu;
  lu.n = static_cast<int>(n.integer("n", 1, INT32_MAX));
  lu.r = static_cast<int>(n.integer("r", 1, INT32_MAX));
  lu.variant = lu_variant(n.choice_or("variant", "basic", {"basic", "pipelined", "flow_control"}));
  lu.window = static_cast<int>(n.integer_or("window", lu.window, 1, kMaxRanks));
  if (auto remove = n.optional("remove")) {
    remove->known_fields({"ranks", "after_iteration"});
    lu.remove_ranks = static_cast<int>(remove->integer("ranks", 1, kMaxRanks));
    lu.remove_after_iteration = static_cast<int>(remove->integer("after_iteration", 0, INT32_MAX));
  }
  if (auto expand = n.optional("expand")) {
    expand->known_fields({"ranks", "after_iteration"});
    lu.expand_ranks = static_cast<int>(expand->integer("ranks", 1, kMaxRanks));
    lu.expand_after_iteration = static_cast<int>(expand->integer("after_iteration", 0, INT32_MAX));
  }
  lu.bcast = lu_bcast(n.choice_or("bcast", "sequential", {"sequential", "tree", "ring"}));
  lu.parallel_multiply = static_cast<int>(n.integer_or("parallel_multiply", 1, 1, INT32_MAX));
  if (auto v = lu_violation(lu, ranks)) {
    if (v->field == "r" || v->field == "parallel_multiply") n.field(v->field).fail(v->expected);
    n.object(v->field.substr(0, v->field.find('.'))).field(v->field.substr(v->field.find('.') + 1)).fail(v->expected);
  }
  if (const double ops = lu_simulated_operations(lu, ranks); ops > kMaxLuSimulatedOperations) {
    char expected[256];
    std::snprintf(expected, sizeof expected,
                  "a block width whose simulation takes at most %.0e operations one by one (n / r = %d iterations on "
                  "%d ranks take about %.1e: a larger r)",
                  kMaxLuSimulatedOperations, lu.n / lu.r, ranks, ops);
    n.field("r").fail(expected);
  }
  return lu;
}

IntegrateSpec integrate_from_json(const JsonNode& n) {
  IntegrateSpec in;
  in.a = n.number_or("a", in.a);
  in.b = n.number_or("b", in.b);
  if (!(in.b > in.a)) {
    auto text = [&n](const char* key, double fallback) {  // as the file wrote it
      std::ostringstream os;
      os << fallback;
      return n.has(key) ? n.field(key).value().dump() : os.str() + ", the default";
    };
    if (n.has("b")) n.field("b").fail("a number > a (" + text("a", in.a) + ")");
    n.field("a").fail("a number < b (" + text("b", in.b) + ")");
  }
  in.steps = static_cast<std::uint64_t>(n.integer_or("steps", static_cast<std::int64_t>(in.steps), 1, INT64_MAX));
  in.message_bytes = static_cast<std::uint64_t>(
      n.integer_or("message_bytes", static_cast<std::int64_t>(in.message_bytes), 0, INT64_MAX));
  if (in.message_bytes < 16) n.field("message_bytes").fail("at least 16 bytes (the message carries the interval)");
  in.disk_bytes = static_cast<std::uint64_t>(n.integer_or("disk_bytes", 0, 0, INT64_MAX));
  return in;
}

nlohmann::json lu_to_json(const LuSpec& lu) {
  nlohmann::json j = {{"n", lu.n}, {"r", lu.r}, {"variant", to_string(lu.variant)}, {"window", lu.window}};
  if (lu.remove_ranks > 0) j["remove"] = {{"ranks", lu.remove_ranks}, {"after_iteration", lu.remove_after_iteration}};
  if (lu.expand_ranks > 0) j["expand"] = {{"ranks", lu.expand_ranks}, {"after_iteration", lu.expand_after_iteration}};
  if (lu.bcast != LuBcast::kSequential) j["bcast"] = to_string(lu.bcast);
  if (lu.parallel_multiply != 1) j["parallel_multiply"] = lu.parallel_multiply;
  return j;
}

nlohmann::json integrate_to_json(const IntegrateSpec& in) {
  return {{"a", in.a},
          {"b", in.b},
          {"steps", in.steps},
          {"message_bytes", in.message_bytes},
          {"disk_bytes", in.disk_bytes}};
}

std::vector<AppJobSpec> app_jobs_from_json(const JsonNode& apps) {
  std::vector<AppJobSpec> jobs;
  std::map<std::string, std::string> names;  // name -> where it was defined
  auto items = apps.items(1);
  for (std::size_t i = 0; i < items.size(); ++i) {
    jobs.push_back(app_job_from_json(items[i], i));
    auto [it, fresh] = names.emplace(jobs.back().name, items[i].path());
    if (!fresh) items[i].field("name").fail("a name not already used by " + it->second);
  }
  return jobs;
}

nlohmann::json to_json(const AppJobSpec& job) {
  nlohmann::json j = {{"name", job.name}, {"app", to_string(job.kind)}, {"start_s", job.start_s}};
  if (job.kind == AppKind::kLu) {
    j["ranks"] = job.ranks;
    j.update(lu_to_json(job.lu));
  } else {
    j["instances"] = job.instances;
    j["ranks_per_instance"] = job.ranks;
    j.update(integrate_to_json(job.integrate));
  }
  if (!job.mapping.computers.empty()) j["computers"] = job.mapping.computers;
  switch (job.mapping.rule) {
    case RankMappingSpec::Rule::kCyclic:
      j["mapping"] = "cyclic";
      break;
    case RankMappingSpec::Rule::kBlock:
      j["mapping"] = "block";
      break;
    case RankMappingSpec::Rule::kList:
      j["mapping"] = job.mapping.ranks;
      break;
  }
  return j;
}

}  // namespace hetperf
