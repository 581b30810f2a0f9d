// JSON written piece by piece must be byte for byte what nlohmann's dump(2) writes for the same values:
// the streamed outputs of predict and schedule are compared with documents dumped whole.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_text.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/row_spool.hpp"
#include "test_support.hpp"

using namespace hetperf;
using json = nlohmann::json;

namespace {

// The values nlohmann writes in several layouts: fixed, exponent, integral doubles, extremes, -0.
const std::vector<double> kTrickyDoubles = {0.0,
                                            -0.0,
                                            1.0,
                                            -1.5,
                                            0.1,
                                            1.0 / 3,
                                            2.0 / 3,
                                            1e-4,
                                            1e-5,
                                            1.2345e-7,
                                            123456789012345.0,
                                            1234567890123456.0,
                                            1e15,
                                            1e16,
                                            1e17,
                                            1.5e20,
                                            1e21,
                                            1e22,
                                            5e-324,
                                            2.2250738585072014e-308,
                                            std::numeric_limits<double>::max(),
                                            std::numeric_limits<double>::lowest(),
                                            9007199254740993.0,
                                            0.30000000000000004,
                                            123.456,
                                            1e300,
                                            3.0e-310};

const std::vector<std::string> kTrickyStrings = {"",
                                                 "plain",
                                                 "with \"quotes\"",
                                                 "back\\slash",
                                                 "tab\there",
                                                 "line\nbreak",
                                                 "\r\b\f",
                                                 std::string("nul\0x", 5),
                                                 "\x01\x1f\x7f",
                                                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                                 "a,b",
                                                 "/slash/"};

std::string dumped(const json& j) { return j.dump(2); }

}  // namespace

TEST_CASE("model: JSON numbers are written as nlohmann writes them") {
  for (double v : kTrickyDoubles) {
    std::string text;
    append_json_number(text, v);
    CHECK(text == json(v).dump());
  }
  // A sweep over magnitudes and digits.
  for (int e = -320; e <= 308; e += 7) {
    for (double m : {1.0, 1.7976931348623157, 2.5, 9.999999999999998, 4.35}) {
      const double v = m * std::pow(10.0, e);
      if (!std::isfinite(v)) continue;
      std::string text;
      append_json_number(text, v);
      CHECK(text == json(v).dump());
    }
  }
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{42}, std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::int64_t>::max()}) {
    std::string text;
    append_json_integer(text, v);
    CHECK(text == json(v).dump());
  }
  std::string text;
  append_json_unsigned(text, std::numeric_limits<std::uint64_t>::max());
  CHECK(text == json(std::numeric_limits<std::uint64_t>::max()).dump());
}

TEST_CASE("model: JSON strings are escaped as nlohmann escapes them, invalid UTF-8 refused alike") {
  for (const std::string& s : kTrickyStrings) {
    std::string text;
    append_json_string(text, s);
    CHECK(text == json(s).dump());
  }
  std::string text;
  CHECK_THROWS_AS(append_json_string(text, "bad \xff byte"), json::type_error);
}

TEST_CASE("model: pretty JSON written piece by piece matches dump(2): nesting, empty containers, keys") {
  // The same document both ways, at depth 0.
  json doc = {{"a", json::array()},
              {"b", json::object()},
              {"c", {1.5, -2, "x", json::array({json::array()}), json::object({{"k", 0.0}})}},
              {"d", {{"e", {{"f", 1e-5}}}, {"g", json::array({1, 2})}}}};
  std::string text;
  JsonText w(text, 0);
  w.begin_object().key("a").begin_array().end_array().key("b").begin_object().end_object();
  w.key("c").begin_array().value(1.5).value(std::int64_t{-2}).value("x").begin_array().begin_array().end_array();
  w.end_array().begin_object().key("k").value(0.0).end_object().end_array();
  w.key("d").begin_object().key("e").begin_object().key("f").value(1e-5).end_object();
  w.key("g").begin_array().value(std::int64_t{1}).value(std::int64_t{2}).end_array().end_object().end_object();
  CHECK(w.finite());
  CHECK(text == dumped(doc));

  // A value that is not finite is remembered, not silently written as nlohmann's null.
  std::string bad;
  JsonText b(bad, 0);
  b.begin_array().value(std::nan("")).end_array();
  CHECK_FALSE(b.finite());
}

TEST_CASE("model: a document split around its arrays joins with streamed rows into the whole dump") {
  // Rows of every kind of tricky value, in a top-level array that sorts between other keys.
  json rows = json::array();
  for (std::size_t i = 0; i < kTrickyDoubles.size(); ++i) {
    rows.push_back({{"name", kTrickyStrings[i % kTrickyStrings.size()]},
                    {"v", kTrickyDoubles[i]},
                    {"list", json::array()},
                    {"n", static_cast<std::int64_t>(i) - 3}});
  }
  json doc = {{"a", "first"},
              {"rows", rows},
              {"summary", {{"rows", rows.size()}, {"processes", json::array()}}},
              {"tail", json::array()},
              {"z", 1.0}};
  json frame = doc;
  frame["rows"] = json::array();
  const std::vector<std::string> pieces = split_json_output(frame, {"rows", "tail"}, "doc.json");
  REQUIRE(pieces.size() == 3);
  std::string text = pieces[0];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    text += json_array_separator(i);
    JsonText w(text, 2);
    w.begin_object().key("list").begin_array().end_array().key("n").value(rows[i]["n"].get<std::int64_t>());
    w.key("name").value(rows[i]["name"].get<std::string>()).key("v").value(rows[i]["v"].get<double>()).end_object();
  }
  text += json_array_close(rows.size());
  text += pieces[1];
  text += json_array_close(0);
  text += pieces[2];
  CHECK(text == json_output_text(doc, "doc.json"));
  // Empty arrays: the pieces with no rows are the dump itself.
  CHECK(pieces[0] + std::string(json_array_close(0)) + pieces[1] + std::string(json_array_close(0)) + pieces[2] ==
        json_output_text(frame, "doc.json"));
}

TEST_CASE("model: a process row streamed is its element of the prediction document") {
  ProcessResult plain{"p-1", "node \"a\"", 0, 0.5, 1e-5, 1.0 / 3, {1.5, 0, 2e20, 1e-7, 0, 0.25, 0}, {}};
  ProcessResult migrated{"m", "b", 1, 2, 30, 29, {1, 2, 3, 4, 5, 6, 7}, {{"a", 1, 10}, {"b", 10, 30}}};
  Prediction p;
  p.processes = {plain, migrated, plain};
  const std::string whole = json_output_text(to_json(p), "p.json");
  Prediction frame = p;
  frame.processes.clear();
  const std::vector<std::string> pieces = split_json_output(to_json(frame), {"processes"}, "p.json");
  std::string text = pieces[0];
  for (std::size_t i = 0; i < p.processes.size(); ++i) {
    text += json_array_separator(i);
    append_process_json_row(text, p.processes[i], i, "p.json");
  }
  text += json_array_close(p.processes.size());
  text += pieces[1];
  CHECK(text == whole);

  ProcessResult infinite = plain;
  infinite.breakdown.disk_s = std::numeric_limits<double>::infinity();
  std::string row;
  CHECK_THAT(test::input_error([&] { append_process_json_row(row, infinite, 7, "p.json"); }),
             Catch::Contains("p.json: $.processes[7].breakdown_s.disk: the result is infinite"));
}

TEST_CASE("model: spooled rows come back in index order, however they were added") {
  test::TempDir dir("row-spool");
  AtomicFile out(dir.path() / "rows.txt");
  std::string expected;
  {
    RowSpool spool(out);
    // Runs in order and single rows out of order, some longer than a read chunk.
    const std::vector<std::size_t> order = {3, 4, 5, 0, 9, 1, 2, 8, 6, 7};
    auto row = [](std::size_t i) { return std::string(i == 6 ? (3u << 20) : 10 + i, static_cast<char>('a' + i)); };
    for (std::size_t i : order) spool.add(i, row(i));
    for (std::size_t i = 0; i < order.size(); ++i) expected += row(i);
    CHECK(spool.rows() == 10);
    spool.copy_to(out);
  }
  out.commit();
  std::ifstream in(dir.path() / "rows.txt");
  std::stringstream s;
  s << in.rdbuf();
  CHECK(s.str() == expected);
  // The spool left nothing beside the output.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
}
