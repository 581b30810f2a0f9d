// Tests for model/src/json_node.cpp and file_io.cpp: error messages name file, path and expectation;
// outputs are written atomically.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <fstream>

#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "test_support.hpp"

using namespace hetperf;
using hetperf::test::input_error;

TEST_CASE("model: json: a wrong value names the file, the JSON path and what was expected") {
  auto j = nlohmann::json::parse(R"({"computers": [{"mips": 5}, {"mips": -3}]})");
  JsonNode root(j, "p.json");
  auto computers = root.array("computers");
  CHECK(computers[0].number("mips", Range::kPositive) == 5);
  CHECK(input_error([&] { computers[1].number("mips", Range::kPositive); }) ==
        "p.json: $.computers[1].mips: expected a positive number, got -3");
}

TEST_CASE("model: json: a missing field names the field and its expected content") {
  auto j = nlohmann::json::parse(R"({"a": {}})");
  JsonNode root(j, "f.json");
  CHECK(input_error([&] { root.object("a").string("name"); }) ==
        "f.json: $.a.name: missing required field 'name' (expected a string)");
}

TEST_CASE("model: json: wrong types, unknown fields, bad choices and integers are rejected clearly") {
  auto j = nlohmann::json::parse(R"({"n": "3", "k": 2.5, "kind": "cubic", "extra": 1})");
  JsonNode root(j, "f.json");
  CHECK(input_error([&] { root.number("n"); }) == "f.json: $.n: expected a number, got the string \"3\"");
  CHECK(input_error([&] { root.integer("k", 0, 10); }) == "f.json: $.k: expected an integer in [0, 10], got 2.5");
  CHECK(input_error([&] {
          root.choice("kind", {"linear", "exponential"});
        }) == "f.json: $.kind: expected one of \"linear\", \"exponential\", got the string \"cubic\"");
  CHECK(input_error([&] {
          root.known_fields({"n", "k", "kind"});
        }) == "f.json: $.extra: unknown field 'extra' (expected one of: n, k, kind)");
}

TEST_CASE("model: json: integers beyond an int64 are rejected, not converted (found by tests/fuzz)") {
  // 2^63 as a float converted to int64 with undefined behaviour (UBSan: "outside the range of representable
  // values"); as an unsigned integer it passed the range check and wrapped to INT64_MIN.
  auto j = nlohmann::json::parse(R"({"f": 9223372036854775808.0, "u": 9223372036854775808, "big": 1e19,
                                     "top": 9223372036854775807, "low": -9223372036854775808, "whole": 3.0})");
  JsonNode root(j, "f.json");
  CHECK(input_error([&] { root.integer("f", 0, INT64_MAX); }) ==
        "f.json: $.f: expected an integer in [0, 9223372036854775807], got 9.223372036854776e+18");
  CHECK(input_error([&] { root.integer("u", 0, INT64_MAX); }) ==
        "f.json: $.u: expected an integer in [0, 9223372036854775807], got 9223372036854775808");
  CHECK(input_error([&] { root.integer("big", INT64_MIN, INT64_MAX); }).find("$.big: expected an integer") !=
        std::string::npos);
  CHECK(root.integer("top", 0, INT64_MAX) == INT64_MAX);
  CHECK(root.integer("low", INT64_MIN, 0) == INT64_MIN);
  CHECK(root.integer("whole", 0, 5) == 3);
}

TEST_CASE("model: json: schema kind and version are checked") {
  auto ok = nlohmann::json::parse(R"({"schema": "hetperf.profile/1"})");
  CHECK(JsonNode(ok, "f").schema("profile", 1) == 1);
  auto other = nlohmann::json::parse(R"({"schema": "hetperf.workload/1"})");
  CHECK(input_error([&] { JsonNode(other, "f").schema("profile", 1); }).find("expected a hetperf.profile file") !=
        std::string::npos);
  auto newer = nlohmann::json::parse(R"({"schema": "hetperf.profile/7"})");
  CHECK(input_error([&] { JsonNode(newer, "f").schema("profile", 1); }).find("version 7") != std::string::npos);
  auto garbage = nlohmann::json::parse(R"({"schema": "hetperf.profile/x"})");
  CHECK(input_error([&] { JsonNode(garbage, "f").schema("profile", 1); }).find("$.schema") != std::string::npos);
}

TEST_CASE("model: file io: invalid JSON reports line and column, a missing file says it cannot be read") {
  hetperf::test::TempDir dir("json_node_test");
  auto bad = dir.write("bad.json", "{\n  \"a\": 1,\n  \"b\": ,\n}\n");
  std::string msg = input_error([&] { read_json_file(bad); });
  CHECK(msg.find("bad.json:3:") != std::string::npos);
  CHECK(msg.find("invalid JSON") != std::string::npos);
  CHECK(input_error([&] { read_json_file(dir.path() / "absent.json"); }).find("cannot read") != std::string::npos);
  CHECK(input_error([&] { read_json_file(dir.path()); }).find("is a directory") != std::string::npos);
}

TEST_CASE("model: file io: JSON text parses with the file's messages: overflow, nesting, empty input") {
  CHECK(parse_json_text(R"({"a": [1, "x"]})", "t.json")["a"][1] == "x");
  CHECK(input_error([] { parse_json_text("{\"a\":\n 1e400}", "t.json"); }) ==
        "t.json:2:2: invalid JSON: number overflow parsing '1e400' (expected a number within ±1.8e308, the range of a "
        "double)");
  CHECK(input_error([] { parse_json_text("", "t.json"); }).rfind("t.json:1:1: invalid JSON: ", 0) == 0);
  // Nesting is bounded (copying and writing a value recurse per level); brackets inside strings do not count.
  std::string deep = std::string(512, '[') + std::string(512, ']');
  CHECK(parse_json_text(deep, "t.json").is_array());
  CHECK(parse_json_text("[\"[[[\\\"[[\"," + std::string(511, '[') + std::string(511, ']') + "]", "t.json").size() == 2);
  std::string deeper = "\n" + std::string(513, '[') + std::string(513, ']');
  CHECK(input_error([&] {
          parse_json_text(deeper, "t.json");
        }).rfind("t.json:2:513: JSON nested more than 512 levels deep", 0) == 0);
}

TEST_CASE("model: file io: atomic writes replace the file whole and leave no temporary behind") {
  hetperf::test::TempDir dir("atomic_test");
  auto target = dir.path() / "sub" / "out.json";
  write_json_file(target, {{"a", 1}});
  write_json_file(target, {{"a", 2}});
  CHECK(read_json_file(target)["a"] == 2);
  std::size_t files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(target.parent_path())) ++files;
  CHECK(files == 1);
  // A write into a directory that cannot be created fails without touching anything.
  auto blocker = dir.write("blocker", "x");
  CHECK_THROWS_AS(write_file_atomic(blocker / "out.json", "y"), EnvironmentError);
  std::ifstream in(blocker);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  CHECK(content == "x");
}

TEST_CASE("model: file io: a key given twice in an object is an error naming its JSON path") {
  CHECK(input_error([] {
          parse_json_text(R"({"processes": [{"name": "a"}, {"name": "b", "mi": 1, "mi": 2}]})", "w.json");
        }) == "w.json: $.processes[1].mi: duplicate key (expected each key once in an object)");
  CHECK(input_error([] { parse_json_text(R"({"a": {"b": [[1], {"c": 1}]}, "a": 2})", "w.json"); }) ==
        "w.json: $.a: duplicate key (expected each key once in an object)");
  // The same key in two objects is no duplicate.
  CHECK(parse_json_text(R"([{"a": 1}, {"a": 2}, {"b": {"a": 3}}])", "w.json")[2]["b"]["a"] == 3);
}

TEST_CASE("model: file io: a NUL byte in JSON is an error at its line and column, not the end of the file") {
  const std::string text = std::string("{\"a\": 1}\n") + '\0' + "{\"b\": 2}";
  CHECK(input_error([&] { parse_json_text(text, "w.json"); }) ==
        "w.json:2:1: a NUL byte (expected JSON text; is this a binary or damaged file?)");
}

TEST_CASE("model: file io: an input that is not a regular file is refused before it is read") {
  hetperf::test::TempDir dir("json_node_nonregular");
  CHECK(input_error([] { read_text_file("/dev/zero"); }) ==
        "/dev/zero: cannot read: it is a character device, expected a regular file");
  const auto fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // opened without blocking, and refused without a writer
  CHECK(input_error([&] { read_text_file(fifo); }) ==
        fifo.string() + ": cannot read: it is a FIFO, expected a regular file");
}

TEST_CASE("model: json: a huge key is echoed cut to 80 characters") {
  nlohmann::json j = {{std::string(50'000, 'k'), 1}};
  const std::string m = input_error([&] { JsonNode(j, "f.json").known_fields({"a"}); });
  CHECK(m.size() < 300);
  CHECK(m.rfind("f.json: $." + std::string(77, 'k') + "...: unknown field '" + std::string(77, 'k') + "...'", 0) == 0);
}
