// Tests of the Standard Workload Format reader and writer and of the SWF -> job conversion.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/batch/job.hpp"
#include "hetperf/simulator/batch/swf.hpp"

using namespace hetperf::sim::batch;

namespace {

const char* kSmall =
    "; Version: 2.2\n"
    "; MaxNodes: 64\n"
    "; MaxProcs: 128\n"
    ";\n"
    "    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1\n"
    "    2     1460     12   3726   32   10.5    -1   32   4000    -1  1   1   1  -1 -1 -1 -1 -1\n"
    "\n"
    "    3     1500     -1      0   -1     -1    -1   -1     -1    -1  5  14  -1 184 -1  1 -1 -1\n";

// The header and the first `records` job lines of a file.
std::string head_of(const std::string& path, std::size_t records) {
  std::ifstream in(path);
  REQUIRE(in);
  std::string line, out;
  std::size_t n = 0;
  while (n < records && std::getline(in, line)) {
    out += line + "\n";
    if (!line.empty() && line[0] != ';') ++n;
  }
  return out;
}

}  // namespace

TEST_CASE("simulator: SWF: all 18 fields, -1 values and header comments are read") {
  SwfTrace t = parse_swf(kSmall, "small.swf");
  REQUIRE(t.records.size() == 3);
  CHECK(t.header.size() == 4);
  CHECK(t.header[0] == " Version: 2.2");
  CHECK(t.max_procs == 128);
  CHECK(t.max_nodes == 64);
  CHECK(t.cluster_size() == 128);
  CHECK(t.records[1].get(kWaitTime) == 12);
  CHECK(t.records[1].get(kAverageCpuTime) == 10.5);
  CHECK(t.records[1].get(kRequestedTime) == 4000);
  CHECK(t.records[2].missing(kAllocatedProcs));
  CHECK(t.records[2].get(kStatus) == 5);
  CHECK(t.records[2].get(kPartition) == 1);
  CHECK(t.records[2].line == 8);
}

TEST_CASE("simulator: SWF: MaxNodes is the cluster size when MaxProcs is absent") {
  SwfTrace t = parse_swf("; MaxNodes: 64\n1 0 -1 5 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "n.swf");
  CHECK(t.cluster_size() == 64);
  CHECK_FALSE(parse_swf("1 0 -1 5 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", "n.swf").cluster_size());
}

TEST_CASE("simulator: SWF: import, export and import again gives an equal trace") {
  SwfTrace a = parse_swf(kSmall, "small.swf");
  std::string text = format_swf(a);
  SwfTrace b = parse_swf(text, "exported.swf");
  CHECK(a == b);
  CHECK(format_swf(b) == text);
  SwfRecord r = a.records[0];
  r.set(kSubmitTime, 0.1);  // fractional values survive too
  a.records.push_back(r);
  CHECK(parse_swf(format_swf(a), "x.swf") == a);
}

TEST_CASE("simulator: SWF: a header comment ending in several CRs reads back equal (found by tests/fuzz)") {
  // tests/fuzz/corpus/swf/regress-comment-crcr: one CR was kept, then lost when written and read again.
  SwfTrace a = parse_swf(std::string(";\0\0\0\r\r", 6), "cr.swf");
  REQUIRE(a.header.size() == 1);
  CHECK(a.header[0] == std::string(3, '\0'));
  CHECK(parse_swf("; Version: 2.2\r\r\n", "cr.swf").header[0] == " Version: 2.2");
  CHECK(parse_swf(format_swf(a), "exported.swf") == a);
}

TEST_CASE("simulator: SWF: a malformed field names the line, the field and the token") {
  std::string text = std::string(kSmall) + "4 1600 -1 10 x -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  try {
    parse_swf(text, "bad.swf");
    FAIL("no error");
  } catch (const hetperf::InputError& e) {
    CHECK(std::string(e.what()) ==
          "bad.swf:9: field 5 (allocated processors): expected an integer in [-1, 2147483647], got 'x'");
  }
  CHECK_THROWS_WITH(parse_swf("1 0 -1 10 2.5 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "f.swf"),
                    "f.swf:1: field 5 (allocated processors): expected an integer in [-1, 2147483647], got '2.5'");
  CHECK_THROWS_WITH(parse_swf("1 0 -1 -7 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "f.swf"),
                    "f.swf:1: field 4 (run time): expected -1 (missing) or a number in [0, 1e12], got '-7'");
  CHECK_THROWS_WITH(parse_swf("1 0 -1 10 2 -1\n", "f.swf"), "f.swf:1: expected 18 fields, got 6");
  // A count no scheduler's arithmetic holds, and a time no trace spans.
  CHECK_THROWS_WITH(parse_swf("1 0 -1 10 9999999999999999999 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "f.swf"),
                    "f.swf:1: field 5 (allocated processors): expected an integer in [-1, 2147483647], got "
                    "'9999999999999999999'");
  CHECK_THROWS_WITH(parse_swf("1 0 -1 1e300 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "f.swf"),
                    "f.swf:1: field 4 (run time): expected -1 (missing) or a number in [0, 1e12], got '1e300'");
  // A negative time other than -1 ran a job backwards (the semantic fuzzer: an internal error).
  CHECK_THROWS_WITH(parse_swf("1 0 -1 -5e-324 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "f.swf"),
                    "f.swf:1: field 4 (run time): expected -1 (missing) or a number in [0, 1e12], got '-5e-324'");
  CHECK_THROWS_WITH(parse_swf("1 0 -1 10 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1 7\n", "f.swf"),
                    "f.swf:1: expected 18 fields, got 19");
}

TEST_CASE("simulator: SWF: a processor count of 0 is reported as 0, not as missing") {
  SwfTrace t = parse_swf("1 0 -1 10 0 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "z.swf");
  std::vector<SkippedJob> skipped;
  CHECK(jobs_from_swf(t, skipped).empty());
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].reason ==
        "no processor count: field 5 (allocated processors) is 0, field 8 (requested "
        "processors) is missing (expected at least 1)");
}

TEST_CASE("simulator: SWF: the first lines of each real trace are imported") {
  // The committed excerpts (tests/data/swf/README.md: each source's header and first 1,500 jobs).
  const std::string dir = std::string(HETPERF_SOURCE_DIR) + "/tests/data/swf/";
  SECTION("NASA iPSC/860") {
    SwfTrace t = parse_swf(head_of(dir + "NASA-iPSC-1993-3.1-cln.first1500.swf", 500), "nasa.swf");
    CHECK(t.records.size() == 500);
    CHECK(t.cluster_size() == 128);
    CHECK(t.records[0].get(kRunTime) == 1451);
    CHECK(t.records[0].get(kAllocatedProcs) == 128);
    std::vector<SkippedJob> skipped;
    auto jobs = jobs_from_swf(t, skipped);
    CHECK(jobs.size() + skipped.size() == 500);
    CHECK(jobs[0].processors == 128);
    CHECK(*jobs[0].run_time_s == 1451);
    CHECK(parse_swf(format_swf(t), "again.swf") == t);
  }
  SECTION("LLNL Atlas, with missing processor counts") {
    SwfTrace t = parse_swf(head_of(dir + "LLNL-Atlas-2006-2.1-cln.first1500.swf", 500), "atlas.swf");
    CHECK(t.records.size() == 500);
    CHECK(t.max_procs == 9216);
    CHECK(t.max_nodes == 1152);
    std::vector<SkippedJob> skipped;
    auto jobs = jobs_from_swf(t, skipped);
    REQUIRE_FALSE(skipped.empty());
    CHECK(jobs.size() + skipped.size() == 500);
    CHECK(skipped[0].reason ==
          "no processor count: field 5 (allocated processors) is missing, field 8 (requested "
          "processors) is missing (expected at least 1)");
    CHECK(skipped[0].where.rfind("atlas.swf:", 0) == 0);
    CHECK(parse_swf(format_swf(t), "again.swf") == t);
  }
}

TEST_CASE("simulator: SWF: the processor count chosen, jobs killed at their limit, jobs without a limit") {
  // job 1: 8 allocated, 16 requested, ran 500 s of a 300 s limit; job 2: no limit (-1); job 3: no
  // allocated count.
  const std::string text =
      "; MaxProcs: 64\n"
      "1 0 -1 500 8 -1 -1 16 300 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 10 -1 100 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
      "3 20 -1 50 -1 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n";
  SwfTrace t = parse_swf(text, "t.swf");
  std::vector<SkippedJob> skipped;
  SwfImportSummary s;
  auto jobs = jobs_from_swf(t, skipped, {}, &s);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].processors == 8);
  CHECK(*jobs[0].run_time_s == 300);  // killed at its requested time
  CHECK(*jobs[1].run_time_s == 100);
  CHECK_FALSE(jobs[1].requested_time_s);
  CHECK(jobs[2].processors == 2);  // allocated count missing: the requested one
  CHECK(s.killed_at_limit == 1);
  CHECK(s.without_requested_time == 1);
  CHECK(s.procs_fallback == 1);
  SwfImportOptions o;
  o.procs = SwfImportOptions::Procs::kRequested;
  o.kill_at_limit = false;
  jobs = jobs_from_swf(t, skipped, o, &s);
  CHECK(jobs[0].processors == 16);
  CHECK(*jobs[0].run_time_s == 500);
  CHECK(s.killed_at_limit == 0);
  CHECK(s.procs == "requested");
  CHECK(s.procs_fallback == 0);
}
