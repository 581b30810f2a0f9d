// Tests for model/src/gnuplot.cpp: the script preamble, inline datablocks and gnuplot quoting.
#include <catch2/catch.hpp>

#include "hetperf/model/gnuplot.hpp"

using namespace hetperf;

TEST_CASE("model: gnuplot: strings are double-quoted with quotes, backslashes and line breaks escaped") {
  CHECK(gnuplot_quoted("rank 0") == "\"rank 0\"");
  CHECK(gnuplot_quoted("a \"b\" c:\\d\ne") == "\"a \\\"b\\\" c:\\\\d\\ne\"");
}

TEST_CASE("model: gnuplot: a script has its terminal, output and data inline, then the caller's commands") {
  GnuplotScript gp;
  gp.comment("made by a test").terminal("pngcairo", 900, 500).output("out dir/a.png");
  gp.terminal("svg", 800, 560, "dynamic noenhanced");
  gp.datablock("d", "1 2\n3 4\n") << "plot $d using 1:" << 2 << " notitle\n";
  CHECK(gp.text() ==
        "# made by a test\n"
        "set terminal pngcairo size 900,500\n"
        "set output \"out dir/a.png\"\n"
        "set terminal svg size 800,560 dynamic noenhanced\n"
        "$d << EOD\n1 2\n3 4\nEOD\n"
        "plot $d using 1:2 notitle\n");
}
