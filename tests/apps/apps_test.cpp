// Tests for apps/src: configuration checks, the integration kernel, the test matrix and the
// per-iteration dynamic efficiency of a trace.
#include <catch2/catch.hpp>

#include <cmath>

#include "hetperf/apps/integrate.hpp"
#include "hetperf/apps/lu.hpp"
#include "hetperf/model/trace.hpp"

using namespace hetperf::apps;

TEST_CASE("apps: LU configurations that cannot run are rejected with the option named") {
  LuConfig c;
  c.n = 256, c.r = 512;
  CHECK(c.validate(2).find("--r 512: expected a block width no larger than n") == 0);
  c.r = 48;
  CHECK(c.validate(2).find("divides n") != std::string::npos);
  c.r = 32, c.remove = 2, c.remove_after_iteration = 1;
  CHECK(c.validate(2).find("--remove 2: expected fewer ranks to leave") == 0);
  c.remove = 1, c.remove_after_iteration = 7;  // 8 iterations: the last removal point is 6
  CHECK(c.validate(2).find("--after-iteration 7") == 0);
  c.remove_after_iteration = 6;
  CHECK(c.validate(2).empty());
  c.remove = 0, c.expand = 2, c.expand_after_iteration = 1;
  CHECK(c.validate(2).find("--expand 2: expected fewer ranks to join") == 0);
  c.expand = 1, c.expand_after_iteration = 7;
  CHECK(c.validate(2).find("--expand-after-iteration 7") == 0);
  c.expand_after_iteration = 2, c.remove = 1, c.remove_after_iteration = 2;
  CHECK(c.validate(2).find("--after-iteration 2: expected an iteration after the expansion's (2)") == 0);
  c.remove_after_iteration = 3;
  CHECK(c.validate(2).empty());
  c.expand = 0, c.expand_after_iteration = -1;
  c.remove = 0, c.parallel_multiply = 3;
  CHECK(c.validate(4) == "--parallel-multiply 3: expected a number of sub-blocks that divides r = 32");
  c.parallel_multiply = 4;
  CHECK(c.validate(2) ==
        "--parallel-multiply 4: expected at most one sub-block per rank: no more than the 2 ranks that stay");
  CHECK(c.validate(4).empty());
  c.parallel_multiply = 0;
  CHECK(c.validate(4) == "--parallel-multiply 0: expected at least 1 sub-block");
}

TEST_CASE("apps: LU variant and broadcast names are parsed, unknown ones named in the error") {
  CHECK(parse_lu_bcast("sequential") == LuBcast::kSequential);
  CHECK(parse_lu_bcast("tree") == LuBcast::kTree);
  CHECK(parse_lu_bcast("ring") == LuBcast::kRing);
  CHECK_THROWS_WITH(parse_lu_bcast("star"), "--bcast star: expected sequential, tree or ring");
  CHECK(parse_lu_variant("flow_control") == LuVariant::kFlowControl);
  CHECK_THROWS_WITH(parse_lu_variant("fast"), "--variant fast: expected basic, pipelined or flow_control");
}

TEST_CASE("apps: the test matrix is a pure function of seed and position") {
  CHECK(lu_matrix_element(1, 3, 4) == lu_matrix_element(1, 3, 4));
  CHECK(lu_matrix_element(1, 3, 4) != lu_matrix_element(2, 3, 4));
  CHECK(lu_matrix_element(1, 3, 4) != lu_matrix_element(1, 4, 3));
  double sum = 0;
  for (int i = 0; i < 200; ++i) {
    for (int j = 0; j < 200; ++j) {
      double v = lu_matrix_element(7, i, j);
      REQUIRE(v >= -0.5);
      REQUIRE(v < 0.5);
      sum += v;
    }
  }
  CHECK(std::fabs(sum / 40000) < 0.01);
}

TEST_CASE("apps: the trapezium rule converges to the closed form of 2 sin x + e^x") {
  double exact = integral_closed_form(0.5, 2.0);
  CHECK(exact == Approx(2 * (std::cos(0.5) - std::cos(2.0)) + std::exp(2.0) - std::exp(0.5)));
  double coarse = std::fabs(trapezium(0.5, 2.0, 100) - exact);
  double fine = std::fabs(trapezium(0.5, 2.0, 1000) - exact);
  CHECK(coarse / fine == Approx(100).epsilon(0.01));  // second order: 10x steps, 100x smaller error
  CHECK(std::fabs(trapezium(0.5, 2.0, 1000000) - exact) / exact < 1e-10);
}

TEST_CASE("apps: dynamic efficiency is useful compute time over ranks times iteration time") {
  // Iteration 0: rank 0 computes 0-3 s, rank 1 computes 1-2 s and waits: 4 s of work in 2 x 3 s.
  std::vector<TraceEvent> events = {
      {0, "getrf", 0, -1, 0, 0, 0, 0, 0, 0.0, 3.0},
      {1, "recv", 0, 0, 1, 100, 0, 0, 0, 0.0, 1.0},
      {1, "gemm", 0, -1, 0, 0, 1, 1, 1, 1.0, 2.0},
      {0, "gemm", 1, -1, 0, 0, 1, 1, 1, 3.0, 4.0},
  };
  auto its = summarize_iterations(events, 2);
  REQUIRE(its.size() == 2);
  CHECK(its[0].compute_s == Approx(4.0));
  CHECK(its[0].efficiency() == Approx(4.0 / 6.0));
  CHECK(its[1].efficiency() == Approx(1.0 / 2.0));
}

TEST_CASE("apps: an LU redistribution runs from the last rank's entry to the last hand-off's end") {
  // After iteration 2: rank 2 joined and waits in its receive from 0.5 s; rank 0 enters at 1 s,
  // rank 1 at 2 s; the last hand-off ends at 3.5 s. Other messages do not count.
  std::vector<TraceEvent> events = {{2, "recv", 2, 0, kLuHandOffTag, 100, 0, 0, 0, 0.5, 3.0},
                                    {0, "send", 2, 2, kLuHandOffTag, 100, 0, 0, 0, 1.0, 3.0},
                                    {1, "send", 2, 2, kLuHandOffTag, 50, 0, 0, 0, 2.0, 3.5},
                                    {2, "recv", 2, 1, kLuHandOffTag, 50, 0, 0, 0, 3.0, 3.5},
                                    {0, "send", 2, 1, 1, 999, 0, 0, 0, 0.0, 9.0}};
  LuConfig cfg;
  cfg.n = 384, cfg.r = 48, cfg.expand = 1, cfg.expand_after_iteration = 2;
  auto rs = lu_redistributions(events, cfg, 3);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].after_iteration == 2);
  CHECK(rs[0].start_s == 2.0);
  CHECK(rs[0].end_s == 3.5);
  CHECK(rs[0].time_s() == 1.5);
  CHECK(rs[0].bytes == 150);
  CHECK(rs[0].ranks == 3);
  CHECK(rs[0].from_ranks == 2);
  CHECK(rs[0].to_ranks == 3);
}
