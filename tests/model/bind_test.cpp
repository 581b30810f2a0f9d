// bind(workload, profile): names resolved to indices, and a workload that does not fit its profile
// refused naming the workload field and the profile field.
#include <catch2/catch.hpp>

#include "hetperf/model/bind.hpp"
#include "test_support.hpp"

using namespace hetperf;
using hetperf::test::input_error;
using nlohmann::json;

namespace {

// Computers a (2 cores, LU kernels and an integration step), b (1 core, LU kernels at the LU's shape
// only) and c (2 cores, nothing measured but the basics), read from "p.json".
Profile profile() {
  json kernels = json::array();
  for (const char* k : {"dgemm", "dtrsm", "dgetrf", "dlaswp"})
    kernels.push_back({{"kernel", k}, {"powers", {3}}, {"coefficients_s", {1e-9}}});
  json lu_kernels = kernels;
  for (auto& k : lu_kernels) k["rows"] = 2048;
  auto computer = [](const char* name, int cores) {
    return json{{"name", name},
                {"cores", cores},
                {"mips", 1000},
                {"main_memory_mb", 1024},
                {"disk_read_bytes_per_s", 1e8},
                {"disk_write_bytes_per_s", 1e8},
                {"overhead_latency_s", 1e-5}};
  };
  json a = computer("a", 2), b = computer("b", 1), c = computer("c", 2);
  a["kernels"] = kernels;
  a["integration_step_s"] = 2e-8;
  b["kernels"] = lu_kernels;
  json p = {{"schema", "hetperf.profile/1"},
            {"computers", {a, b, c}},
            {"network", {{"latency_s", 1e-5}, {"bandwidth_bytes_per_s", 1e9}}}};
  return profile_from_json(p, "p.json");
}

Workload workload(const json& members) {
  json w = {{"schema", "hetperf.workload/1"}};
  w.update(members);
  return workload_from_json(w, "w.json");
}

std::string bind_error(const json& members, const Profile& p = profile()) {
  Workload w = workload(members);
  return input_error([&] { bind(w, p); });
}

}  // namespace

TEST_CASE("model: bind resolves the application jobs' computers to the ranks' indices") {
  Workload w = workload({{"apps", json::parse(R"([
    {"app": "lu", "ranks": 2, "n": 960, "r": 96},
    {"app": "lu", "ranks": 4, "n": 960, "r": 96, "computers": ["b", "a"], "mapping": "block"},
    {"app": "lu", "ranks": 3, "n": 960, "r": 96, "computers": ["b", "a"]},
    {"app": "integrate", "instances": 2, "mapping": ["b", "a", "c", "a"]}])")}});
  Binding b = bind(w, profile());
  REQUIRE(b.app_mappings.size() == 4);
  CHECK(b.app_mappings[0] == std::vector<std::size_t>{0, 1});  // cyclic over all computers, in profile order
  CHECK(b.app_mappings[1] == std::vector<std::size_t>{1, 1, 0, 0});
  CHECK(b.app_mappings[2] == std::vector<std::size_t>{1, 0, 1});
  // The masters (ranks 0 and 2) need no integration step: b and c have none.
  CHECK(b.app_mappings[3] == std::vector<std::size_t>{1, 0, 2, 0});
}

TEST_CASE("model: bind refuses application jobs whose computers are not in the profile") {
  CHECK(bind_error({{"apps", json::parse(R"([{"app": "integrate", "mapping": ["a", "x"]}])")}}) ==
        "w.json: $.apps[0].mapping[1]: expected the name of a computer of the profile p.json, got \"x\"");
  CHECK(bind_error({{"apps", json::parse(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48},
                                             {"app": "lu", "ranks": 2, "n": 96, "r": 48, "computers": ["a", "z"]}])")}}) ==
        "w.json: $.apps[1].computers[1]: expected the name of a computer of the profile p.json, got \"z\"");
}

TEST_CASE("model: bind names the profile figure a mapped computer lacks and the job that needs it") {
  CHECK(bind_error({{"apps", json::parse(R"([{"name": "int", "app": "integrate", "mapping": ["a", "c"]}])")}}) ==
        "p.json: $.computers[2].integration_step_s: missing, needed by w.json: $.apps[0] (app \"int\"); probe with the "
        "cpu "
        "probe, then calibrate");
  CHECK(
      bind_error({{"apps", json::parse(R"([{"app": "lu", "ranks": 2, "n": 96, "r": 48, "computers": ["c"]}])")}}) ==
      "p.json: $.computers[2].kernels: no dgemm model, needed by w.json: $.apps[0] (app \"lu-0\"); probe with the cpu "
      "probe's kernels, then calibrate (or calibrate --trace with LU traces)");
  // A computer no rank is mapped to may lack them.
  bind(workload({{"apps", json::parse(R"([{"app": "lu", "ranks": 4, "n": 96, "r": 48, "computers": ["a", "b"]}])")}}),
       profile());

  Profile p = profile();
  p.computers[0].disk_write_bytes_per_s = 0;  // a profile built in code, without disk figures
  CHECK(
      bind_error(
          {{"apps", json::parse(R"([{"name": "w", "app": "integrate", "disk_bytes": 1024, "mapping": ["b", "a"]}])")}},
          p) == "p.json: $.computers[0].disk_write_bytes_per_s: missing, needed by w.json: $.apps[0] (app \"w\")");
  bind(workload({{"apps", json::parse(R"([{"app": "integrate", "mapping": ["b", "a"]}])")}}), p);  // no disk writes
  p.network.bandwidth_bytes_per_s = 0;
  CHECK(bind_error({{"apps", json::parse(R"([{"app": "integrate", "mapping": ["b", "a"]}])")}}, p) ==
        "p.json: $.network.bandwidth_bytes_per_s: missing, needed by w.json: $.apps[0] (app \"integrate-0\")");
}

TEST_CASE("model: bind names a computer that stands for several in the profile") {
  json p = {{"schema", "hetperf.profile/1"},
            {"computers",
             {{{"name", "node"},
               {"count", 3},
               {"mips", 1000},
               {"main_memory_mb", 1024},
               {"disk_read_bytes_per_s", 1e8},
               {"disk_write_bytes_per_s", 1e8},
               {"overhead_latency_s", 0}}}},
            {"network", {{"latency_s", 0}, {"bandwidth_bytes_per_s", 1e9}}}};
  CHECK(bind_error({{"apps", json::parse(R"([{"app": "integrate", "mapping": ["node-1", "node-3"]}])")}},
                   profile_from_json(p, "p.json")) ==
        "p.json: $.computers[0].integration_step_s: missing for computer \"node-3\", needed by w.json: $.apps[0] (app "
        "\"integrate-0\"); probe with the cpu probe, then calibrate");
}

TEST_CASE("model: bind resolves pinned computers and message peers of processes and generators") {
  Workload w = workload(json::parse(R"({
    "processes": [{"name": "server", "mi": 1, "computer": "c"},
                  {"name": "client", "mi": 1, "messages": {"count": 2, "bytes": 8, "peer": "server"}},
                  {"name": "out", "mi": 1, "messages": {"count": 2, "bytes": 8, "peer": "b"}}],
    "generators": [{"process": {"name": "g", "mi": 1, "computer": "a"}, "interarrival_s": 1, "count": 2}]})"));
  Binding b = bind(w, profile());
  REQUIRE(b.processes.size() == 3);
  CHECK(b.processes[0].computer == 2);
  CHECK(!b.processes[0].peer);
  CHECK(!b.processes[1].computer);
  REQUIRE(b.processes[1].peer);
  CHECK(b.processes[1].peer->kind == PeerRef::Kind::kProcess);
  CHECK(b.processes[1].peer->index == 0);
  CHECK(b.processes[2].peer->kind == PeerRef::Kind::kComputer);
  CHECK(b.processes[2].peer->index == 1);
  REQUIRE(b.generators.size() == 1);
  CHECK(b.generators[0].computer == 0);
}

TEST_CASE("model: bind refuses processes pinned to, or messaging, what is not there") {
  CHECK(bind_error(json::parse(R"({"processes": [{"name": "p", "mi": 1, "computer": "c9"}]})")) ==
        "w.json: $.processes[0].computer: expected the name of a computer of the profile p.json, got \"c9\"");
  CHECK(bind_error(
            json::parse(R"({"generators": [{"process": {"name": "g", "mi": 1, "computer": "c9"}, "interarrival_s": 1,
                                    "count": 1}]})")) ==
        "w.json: $.generators[0].process.computer: expected the name of a computer of the profile p.json, got \"c9\"");
  CHECK(bind_error(json::parse(
            R"({"processes": [{"name": "p", "mi": 1, "messages": {"count": 2, "bytes": 1, "peer": "nobody"}}]})")) ==
        "w.json: $.processes[0].messages.peer: expected the name of a computer of the profile p.json or of a process "
        "listed with count 1, got \"nobody\"");
  CHECK(
      bind_error(json::parse(R"({"processes": [{"name": "w", "count": 2, "mi": 1},
                                   {"name": "p", "mi": 1, "messages": {"count": 2, "bytes": 1, "peer": "w"}}]})")) ==
      "w.json: $.processes[1].messages.peer: expected a computer of the profile p.json or a process listed with count "
      "1, got \"w\" which stands for 2 processes");
}

TEST_CASE("model: bind names the disk and network figures a process may use") {
  Profile p = profile();
  p.computers[1].disk_read_bytes_per_s = 0;
  json reader = json::parse(R"({"processes": [{"name": "r", "mi": 1, "disk_read": {"ops": 1, "bytes_per_op": 10}}]})");
  CHECK(bind_error(reader, p) ==
        "p.json: $.computers[1].disk_read_bytes_per_s: missing, needed by w.json: $.processes[0].disk_read (process "
        "\"r\")");
  reader["processes"][0]["computer"] = "a";  // pinned where the figure is
  bind(workload(reader), p);
  p.network.bandwidth_bytes_per_s = 0;
  CHECK(
      bind_error(json::parse(R"({"processes": [{"name": "m", "mi": 1, "messages": {"count": 1, "bytes": 10}}]})"), p) ==
      "p.json: $.network.bandwidth_bytes_per_s: missing, needed by w.json: $.processes[0].messages (process \"m\")");
  bind(workload(json::parse(R"({"processes": [{"name": "quiet", "mi": 1}]})")), p);
}

TEST_CASE("model: bind checks the computers a batch job's application model is simulated on") {
  // LU with n / r = 3 runs on the first 3 cores: a's two and b's one; c is never used.
  bind(workload(json::parse(R"({"jobs": [{"processors": 2, "app": {"kind": "lu", "n": 300, "r": 100}}]})")), profile());
  CHECK(bind_error(json::parse(R"({"jobs": [{"processors": 2, "app": {"kind": "lu", "n": 400, "r": 100}}]})")) ==
        "p.json: $.computers[2].kernels: no dgemm model, needed by w.json: $.jobs[0].app (an \"lu\" model simulated on "
        "the "
        "profile's first 4 cores); probe with the cpu probe's kernels, then calibrate (or calibrate --trace with LU "
        "traces)");
  CHECK(bind_error(json::parse(R"({"jobs": [{"processors": 2, "app": {"kind": "integrate", "steps": 10}}]})")) ==
        "p.json: $.computers[1].integration_step_s: missing, needed by w.json: $.jobs[0].app (an \"integrate\" model "
        "simulated on the profile's first 5 cores); probe with the cpu probe, then calibrate");
  json one = {{"schema", "hetperf.profile/1"},
              {"computers",
               {{{"name", "solo"},
                 {"mips", 1000},
                 {"main_memory_mb", 1024},
                 {"disk_read_bytes_per_s", 1e8},
                 {"disk_write_bytes_per_s", 1e8},
                 {"overhead_latency_s", 0},
                 {"integration_step_s", 1e-8}}}},
              {"network", {{"latency_s", 0}, {"bandwidth_bytes_per_s", 1e9}}}};
  CHECK(
      bind_error(json::parse(R"({"jobs": [{"processors": 2, "app": {"kind": "integrate", "steps": 10}}]})"),
                 profile_from_json(one, "one.json")) ==
      "w.json: $.jobs[0].app: expected an application that fits the profile one.json (an integration needs 2 cores, a "
      "master and a worker), got \"integrate\" on its 1 core");
  // Tables need nothing of the profile.
  bind(workload(json::parse(R"({"jobs": [{"processors": 99, "run_time_s": 1}]})")), profile_from_json(one, "one.json"));
}

TEST_CASE("model: bind refuses a queueing discipline for a computer or group the profile lacks") {
  CHECK(
      bind_error(json::parse(R"({"policy": {"discipline": {"c9": "fifo"}}, "processes": [{"name": "p", "mi": 1}]})")) ==
      "w.json: $.policy.discipline.c9: expected \"default\", the name of a computer of the profile p.json or of a "
      "computer group, got \"c9\"");
  CHECK_NOTHROW(
      bind(workload(json::parse(R"({"policy": {"discipline": {"b": "fifo"}}, "processes": [{"name": "p", "mi": 1}]})")),
           profile()));
}
