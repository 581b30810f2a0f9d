// Application jobs of a workload ("apps", docs/apps.md): runs of the real applications (block LU,
// integration) given by their options and by where their ranks go, by computer name. The reader
// checks each job on its own; bind() (bind.hpp) checks the names and figures against a profile.
// The LU and integration options are also the application models of batch jobs (batch_jobs.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

class JsonNode;

// The block LU's variants (apps/lu.hpp runs them): a barrier closing every iteration; look-ahead on
// the next panel; look-ahead plus the DPS flow control of the panel sends (DPS paper section 6).
enum class LuVariant { kBasic, kPipelined, kFlowControl };

// How a factored panel reaches the other ranks (apps/lu.hpp): one send after another from its owner;
// a binomial tree (MPICH's short-message MPI_Bcast); HPL's increasing ring ("1ring"). All are made of
// point-to-point messages, so the simulated back-end issues the same ones.
enum class LuBcast { kSequential, kTree, kRing };

// The options of one block-LU run, as those of hetperf-lu.
struct LuSpec {
  int n = 0;                              // "n": matrix order, >= 1 (required)
  int r = 0;                              // "r": block width, in [1, n] and dividing n (required)
  LuVariant variant = LuVariant::kBasic;  // "variant": "basic" (default), "pipelined", "flow_control"
  int window = 2;                         // "window": outstanding panel sends of flow_control, >= 1; default 2
  int remove_ranks = 0;                   // "remove.ranks": the highest-numbered ranks that leave, fewer than
                                          // the ranks; 0 (no "remove", default): none leave
  int remove_after_iteration = -1;        // "remove.after_iteration": ... after this iteration, in
                                          // [0, n/r − 2]; -1 without "remove"
  // "expand": {"ranks": K, "after_iteration": I}: the run starts on ranks − K ranks, the highest K
  // idle, and they join after iteration I in [0, n/r − 2] (ReSHAPE paper's expansion at a resize point;
  // the block columns are redistributed block-cyclically over the larger set). A removal, if any,
  // comes after the expansion. 0 and -1 without "expand".
  int expand_ranks = 0;
  int expand_after_iteration = -1;
  LuBcast bcast = LuBcast::kSequential;  // "bcast": "sequential" (default), "tree", "ring"
  int parallel_multiply = 1;             // "parallel_multiply": S, the sub-blocks each trailing update is
                                         // split into (DPS paper section 6, PM); >= 1, divides r, at most the
                                         // ranks that stay; default 1 (no split)
};

// The options of one master/worker integration of 2 sin x + e^x, as those of hetperf-integrate.
struct IntegrateSpec {
  double a = 0;                      // "a": lower end of the interval; default 0
  double b = 1;                      // "b": upper end, > a; default 1
  std::uint64_t steps = 10'000'000;  // "steps": trapezium steps per worker, >= 1; default 1e7
  std::uint64_t message_bytes = 32;  // "message_bytes": each master <-> worker message, >= 16; default 32
  std::uint64_t disk_bytes = 0;      // "disk_bytes": bytes each worker writes to disk, >= 0; default 0
};

// The rules on LU options that involve more than one field, for a run on `ranks` ranks: r <= n,
// r divides n, fewer ranks leave than run, and they leave before the last iteration; fewer ranks join
// than run, they join before the last iteration and before any removal; the sub-blocks of
// parallel_multiply divide r and go to distinct ranks (S <= the ranks active throughout). Returns
// nullopt when they hold, else the field that breaks one ("r", "remove.ranks",
// "remove.after_iteration", "expand.ranks", "expand.after_iteration", "parallel_multiply") and
// the expectation, e.g. {"r", "a block width that divides n = 1000"}. Shared by the workload reader
// and hetperf-lu's options (apps/lu.hpp).
struct FieldViolation {
  std::string field;
  std::string expected;
};
std::optional<FieldViolation> lu_violation(const LuSpec& lu, int ranks);

// The operations and messages a simulated LU takes one by one, about 4 (n/r)² + 10 (n/r) · ranks (its
// blocks' updates, and each rank's calls per iteration: 2.1 million events for n/r = 1024 on 4 ranks,
// 8.4 million for n/r = 1024 on 1,024 ranks). The workload reader refuses more than
// kMaxLuSimulatedOperations, about two hours at 1.4 million events a second, before any simulation
// work: n = 1,048,576 with r = 128 on 16,384 ranks takes 1.6·10⁹; r = 1 on n = 16·10⁶ would take 10¹⁵.
double lu_simulated_operations(const LuSpec& lu, int ranks);
inline constexpr double kMaxLuSimulatedOperations = 1e10;

// Where the ranks of an application job go: a rule over a list of computers, or one computer per rank.
struct RankMappingSpec {
  enum class Rule {
    kCyclic,  // "cyclic" (default): rank i on computers[i mod C]
    kBlock,   // "block": rank i on computers[i · C / ranks]
    kList,    // a list of names: rank i on ranks[i]
  };
  std::vector<std::string> computers;  // "computers": profile computers the rule spreads the ranks over,
                                       // at least one; empty (absent): all, in profile order
  Rule rule = Rule::kCyclic;           // "mapping"
  std::vector<std::string> ranks;      // kList: the computer of every rank (all instances, in order)
};

enum class AppKind { kLu, kIntegrate };
const char* to_string(AppKind kind);  // "lu", "integrate"

struct AppJobSpec {
  std::string name;             // "name": unique among the apps; default "<app>-<index in apps>"
  std::string json_path;        // "$.apps[2]", for the errors bind() finds
  AppKind kind = AppKind::kLu;  // "app": "lu" or "integrate" (required)
  double start_s = 0;           // "start_s": when the job starts, s, >= 0; default 0
  int instances = 1;            // integrate: "instances" run at once, each with `ranks` ranks, >= 1; default 1.
                                // LU: 1
  int ranks = 2;                // LU: "ranks", >= 1 (required). Integrate: "ranks_per_instance" (a master and
                                // its workers), >= 2; default 2
  LuSpec lu;                    // kLu: "n", "r", "variant", "window", "remove", "bcast", "parallel_multiply"
  IntegrateSpec integrate;      // kIntegrate: "a", "b", "steps", "message_bytes", "disk_bytes"
  RankMappingSpec mapping;      // "computers" and "mapping"

  int total_ranks() const { return instances * ranks; }
};

// Reads the workload's "apps" array (`apps` at $.apps, at least one job). InputError names the file,
// the JSON path of the field and what was expected: "w.json: $.apps[0].r: expected a block width that
// divides n = 1000, got 300".
std::vector<AppJobSpec> app_jobs_from_json(const JsonNode& apps);
// Every field written, defaults included; app_jobs_from_json reads it back to an equal job.
nlohmann::json to_json(const AppJobSpec& job);

// Readers of the application options shared with the batch jobs' application models. The fields
// read are those named in LuSpec and IntegrateSpec; `n` must hold exactly the fields the caller
// allows (its known_fields). lu_from_json checks the LU rules for `ranks` ranks.
LuSpec lu_from_json(const JsonNode& n, int ranks);
IntegrateSpec integrate_from_json(const JsonNode& n);
// The members of an LuSpec / IntegrateSpec, every one written ("remove" only when ranks leave, "bcast"
// and "parallel_multiply" only when not the default, so the batch jobs' LU models, which take neither,
// read their own output back).
nlohmann::json lu_to_json(const LuSpec& lu);
nlohmann::json integrate_to_json(const IntegrateSpec& in);
const char* to_string(LuVariant v);  // "basic", "pipelined", "flow_control"
const char* to_string(LuBcast b);    // "sequential", "tree", "ring"

}  // namespace hetperf
