// Tests for model/src/trace.cpp and apps/src/trace_view.cpp: reading traces back (good and malformed),
// the per-rank time accounting, the CSV, and the Gantt chart's gnuplot script.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "hetperf/apps/trace_view.hpp"
#include "hetperf/model/file_io.hpp"
#include "test_support.hpp"

using namespace hetperf;
using namespace hetperf::apps;
using nlohmann::json;

namespace {

// A two-rank LU trace as hetperf-lu writes it (times in seconds from the start of the run).
json good_trace() {
  return json::parse(R"({
    "schema": "hetperf.trace/1", "app": "lu", "backend": "mpi",
    "config": {"n": 96, "r": 48, "variant": "basic"},
    "run": {"ranks": 2}, "summary": {"factorization_s": 1.0},
    "iterations": [{"iteration": 0, "efficiency": 0.5}],
    "ranks": [
      {"rank": 1, "events": [
        {"op": "recv", "start_s": 0.0, "end_s": 0.4, "iteration": 0, "peer": 0, "tag": 1, "bytes": 36864},
        {"op": "gemm", "start_s": 0.4, "end_s": 0.9, "iteration": 0, "dims": [48, 48, 48]}]},
      {"rank": 0, "events": [
        {"op": "getrf", "start_s": 0.0, "end_s": 0.3, "iteration": 0, "dims": [96, 48, 0]},
        {"op": "send", "start_s": 0.3, "end_s": 0.4, "iteration": 0, "peer": 1, "tag": 1, "bytes": 36864},
        {"op": "barrier", "start_s": 0.6, "end_s": 1.0},
        {"op": "disk_write", "start_s": 0.8, "end_s": 0.9, "bytes": 4096}]}
    ]})");
}

std::string error_of(const json& j) {
  return test::input_error([&] { trace_from_json(j, "t.json"); });
}

bool mentions(const std::string& message, const std::string& part) {
  INFO(message);
  return message.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("apps: a trace file reads back with its ranks, events and configuration") {
  test::TempDir dir("trace_file_good");
  auto path = dir.write("lu.json", good_trace().dump(1));
  TraceFile t = read_trace(path);
  CHECK(t.file == path.string());
  CHECK(t.app == "lu");
  CHECK(t.backend == "mpi");
  CHECK(t.config["n"] == 96);
  CHECK(t.ranks_field == "ranks");
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[0].rank == 1);
  const TraceEvent& recv = t.ranks[0].events[0];
  CHECK(recv.rank == 1);
  CHECK(recv.op == "recv");
  CHECK(recv.peer == 0);
  CHECK(recv.tag == 1);
  CHECK(recv.bytes == 36864);
  CHECK(recv.iteration == 0);
  const TraceEvent& gemm = t.ranks[0].events[1];
  CHECK((gemm.m == 48 && gemm.n == 48 && gemm.k == 48));
  CHECK(gemm.peer == -1);
  CHECK(t.ranks[1].events[2].iteration == -1);
}

TEST_CASE("apps: an integrate trace's instance_0_ranks and a simulated back-end are accepted") {
  json j = good_trace();
  j["app"] = "integrate";
  j["backend"] = "sim";
  j["instance_0_ranks"] = j["ranks"];
  j.erase("ranks");
  TraceFile t = trace_from_json(j, "int.json");
  CHECK(t.backend == "sim");
  CHECK(t.ranks_field == "instance_0_ranks");
  CHECK(t.ranks.size() == 2);
}

TEST_CASE("apps: a malformed trace gives one error naming the file, the JSON path and what was expected") {
  SECTION("another kind of file") {
    json j = good_trace();
    j["schema"] = "hetperf.workload/1";
    CHECK(mentions(error_of(j), "t.json: $.schema: expected a hetperf.trace file, got \"hetperf.workload/1\""));
  }
  SECTION("no ranks") {
    json j = good_trace();
    j.erase("ranks");
    std::string m = error_of(j);
    CHECK(mentions(m, "t.json: $.ranks: missing required field 'ranks'"));
    CHECK(mentions(m, "instance_0_ranks"));
  }
  SECTION("an event without its operation") {
    json j = good_trace();
    j["ranks"][1]["events"][2].erase("op");
    CHECK(mentions(error_of(j), "t.json: $.ranks[1].events[2].op: missing required field 'op' (expected a string)"));
  }
  SECTION("an event that ends before it starts") {
    json j = good_trace();
    j["ranks"][0]["events"][1]["end_s"] = 0.2;
    CHECK(mentions(error_of(j),
                   "t.json: $.ranks[0].events[1].end_s: expected a time no earlier than start_s (0.4), got 0.2"));
  }
  SECTION("a time that is not a number") {
    json j = good_trace();
    j["ranks"][1]["events"][0]["start_s"] = "soon";
    CHECK(mentions(error_of(j), "t.json: $.ranks[1].events[0].start_s: expected a number, got the string \"soon\""));
  }
  SECTION("an unknown back-end") {
    json j = good_trace();
    j["backend"] = "cloud";
    CHECK(mentions(error_of(j), "t.json: $.backend: expected one of \"mpi\", \"sim\""));
  }
  SECTION("a rank listed twice") {
    json j = good_trace();
    j["ranks"][1]["rank"] = 1;
    CHECK(mentions(error_of(j), "t.json: $.ranks[1].rank: expected a rank not listed before, got 1"));
  }
  SECTION("dims that are not three counts") {
    json j = good_trace();
    j["ranks"][0]["events"][1]["dims"] = {48, 48};
    CHECK(mentions(error_of(j), "$.ranks[0].events[1].dims: expected an array [m, n, k] of 3 non-negative integers"));
  }
}

TEST_CASE("apps: an unreadable or invalid JSON trace names the file") {
  test::TempDir dir("trace_file_bad");
  auto path = dir.write("broken.json", "{\"schema\": \"hetperf.trace/1\",\n  \"app\": }");
  CHECK(mentions(test::input_error([&] { read_trace(path); }), path.string() + ":2:"));
  CHECK(mentions(test::input_error([&] { read_trace(dir.path() / "missing.json"); }), "missing.json: cannot read"));
}

TEST_CASE("apps: trace operations fall into compute, send, receive, barrier, disk and other") {
  CHECK(op_class("gemm") == OpClass::kCompute);
  CHECK(op_class("integrate") == OpClass::kCompute);
  CHECK(op_class("isend") == OpClass::kSend);
  CHECK(op_class("wait") == OpClass::kReceive);
  CHECK(op_class("barrier") == OpClass::kBarrier);
  CHECK(op_class("disk_write") == OpClass::kDisk);
  CHECK(op_class("checkpoint") == OpClass::kOther);
  CHECK(std::string(to_string(OpClass::kReceive)) == "receive");
}

TEST_CASE("apps: each rank's compute, communication, disk and idle time add up to the window") {
  TraceFile t = trace_from_json(good_trace(), "t.json");
  TraceSelection all;
  std::vector<TraceRank> ranks = select(t, all);
  REQUIRE(ranks.size() == 2);
  CHECK(ranks[0].rank == 0);  // rows in rank order, whatever the file's order
  TimeWindow w = time_window(ranks, all);
  CHECK(w.from_s == 0.0);
  CHECK(w.to_s == 1.0);
  std::vector<RankUsage> u = rank_usage(ranks, w);
  CHECK(u[0].compute_s == Approx(0.3));
  CHECK(u[0].communication_s == Approx(0.5));  // send 0.1 + barrier 0.4
  CHECK(u[0].disk_s == Approx(0.1));
  CHECK(u[0].idle_s == Approx(0.2));  // 0.4 to 0.6; the disk write overlaps the barrier
  CHECK(u[1].compute_s == Approx(0.5));
  CHECK(u[1].communication_s == Approx(0.4));
  CHECK(u[1].idle_s == Approx(0.1));

  TraceSelection part;
  part.max_ranks = 1;
  part.from_s = 0.35, part.to_s = 0.7;
  ranks = select(t, part);
  REQUIRE(ranks.size() == 1);
  CHECK(ranks[0].events.size() == 2);  // send and barrier overlap the window; getrf and the disk write do not
  w = time_window(ranks, part);
  u = rank_usage(ranks, w);
  CHECK(u[0].communication_s == Approx(0.05 + 0.1));
  CHECK(u[0].idle_s == Approx(0.2));
}

TEST_CASE("apps: invalid trace selections and chart options name the option") {
  TraceSelection s;
  s.max_ranks = 0;
  CHECK(s.validate() == "--ranks 0: expected at least 1");
  s.max_ranks = 4, s.from_s = 2, s.to_s = 1;
  CHECK(s.validate() == "--from 2 --to 1: expected --from before --to");
  GanttOptions g;
  g.out = "chart.jpg";
  CHECK(mentions(g.validate(), "--out chart.jpg: expected a file name ending in .png or .svg"));
  g.out = "chart.SVG";
  CHECK(g.validate().empty());
}

TEST_CASE("apps: trace events as CSV, one line per event with full-precision times") {
  TraceFile t = trace_from_json(good_trace(), "t.json");
  std::string csv = events_csv(select(t, TraceSelection{}));
  CHECK(csv.rfind("rank,op,iteration,start_s,end_s,duration_s,peer,tag,bytes,m,n,k\n", 0) == 0);
  CHECK(mentions(csv, "\n0,getrf,0,0,0.3,0.3,-1,0,0,96,48,0\n"));
  CHECK(mentions(csv, "\n1,recv,0,0,0.4,0.4,0,1,36864,0,0,0\n"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);
}

TEST_CASE("apps: the Gantt script has one row per rank and one coloured series per operation") {
  TraceFile t = trace_from_json(good_trace(), "t.json");
  GanttOptions g;
  g.out = "lu.png";
  std::string gp = gantt_script(t, g, "/tmp/x.png");
  CHECK(mentions(gp, "set terminal pngcairo"));
  CHECK(mentions(gp, "set output \"/tmp/x.png\""));
  CHECK(mentions(gp, "lu (mpi back-end), 2 ranks"));
  CHECK(mentions(gp, "n=96, r=48, variant=basic"));
  CHECK(mentions(gp, "set ytics (\"rank 0\" 0, \"rank 1\" 1)"));
  CHECK(mentions(gp, "title \"getrf\""));
  CHECK(mentions(gp, "title \"disk_write\""));
  CHECK(mentions(gp, "set arrow from first 0, graph 0"));  // iteration 0 starts at 0
  // Compute first in the legend, then communication, disk last.
  CHECK(gp.find("title \"gemm\"") < gp.find("title \"send\""));
  CHECK(gp.find("title \"barrier\"") < gp.find("title \"disk_write\""));
  g.out = "lu.svg";
  g.iteration_lines = false;
  gp = gantt_script(t, g, "/tmp/x.svg");
  CHECK(mentions(gp, "set terminal svg"));
  CHECK(!mentions(gp, "set arrow"));
}

TEST_CASE("apps: a Gantt chart with nothing in its window is an input error, and nothing is written") {
  TraceFile t = trace_from_json(good_trace(), "t.json");
  test::TempDir dir("trace_file_gantt");
  GanttOptions g;
  g.out = dir.path() / "empty.png";
  g.selection.from_s = 5, g.selection.to_s = 6;
  std::string m = test::input_error([&] { draw_gantt(t, g, "/usr/bin/gnuplot"); });
  CHECK(mentions(m, "t.json: no events to draw between --from 5 and --to 6 (the trace's events span 0 to 1 s)"));
  CHECK(!std::filesystem::exists(g.out));
}

TEST_CASE("apps: a Gantt chart is drawn by gnuplot, and a failing gnuplot leaves no picture") {
  TraceFile t = trace_from_json(good_trace(), "t.json");
  test::TempDir dir("trace_file_draw");
  GanttOptions g;
  g.out = dir.path() / "lu.svg";
  // `false` stands in for a gnuplot that fails: the error names it and the picture is not written.
  try {
    draw_gantt(t, g, "/bin/false");
    FAIL("expected an EnvironmentError");
  } catch (const EnvironmentError& e) {
    CHECK(mentions(e.what(), "/bin/false failed (exit status 1) drawing"));
  }
  CHECK(!std::filesystem::exists(g.out));
  if (!std::filesystem::exists("/usr/bin/gnuplot")) {
    WARN("gnuplot not installed: Gantt drawing not tested");
    return;
  }
  draw_gantt(t, g, "/usr/bin/gnuplot");
  REQUIRE(std::filesystem::exists(g.out));
  CHECK(std::filesystem::file_size(g.out) > 1000);
  CHECK(mentions(read_text_file(g.out), "<svg"));
}
