// JSON text written piece by piece, byte for byte as nlohmann::json's dump(2) writes the same values
// (json_output_text), for outputs whose rows are written as they are known instead of being gathered
// into one document: numbers in nlohmann's shortest round-trip form ("0.0", "1e-05", "1.5e+20"),
// strings escaped as it escapes them, two-space indentation.
//
// The document around the rows still comes from nlohmann: split_json_output dumps it with its large
// arrays empty and cuts it where their rows go, so only the rows are formatted here.
//
//   std::vector<std::string> pieces = split_json_output(doc, {"processes"}, "out.json");
//   out.write(pieces[0]);                      // ... "processes": [
//   for (each row i) out.write(row text);      // JsonText(text, 2) with json_array_separator(i) first
//   out.write(json_array_close(rows));         // "\n  ]", or "]" with no rows
//   out.write(pieces[1]);                      // , "schema": ... }\n
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

// `v` as nlohmann writes a double; it must be finite.
void append_json_number(std::string& out, double v);
// `v` as nlohmann writes an integer.
void append_json_integer(std::string& out, std::int64_t v);
void append_json_unsigned(std::string& out, std::uint64_t v);
// `s` quoted and escaped as nlohmann writes it (invalid UTF-8 throws as nlohmann's dump does).
void append_json_string(std::string& out, std::string_view s);

// Pretty JSON appended to a string, starting at nesting `depth` (the depth of the first value written:
// 2 for an object inside a top-level array). Object keys are written in the order given: to match
// nlohmann's output, which sorts them, give them sorted. A number that is not finite is not written
// ("null" would be) but remembered: finite() then says false and the caller refuses the output.
class JsonText {
 public:
  JsonText(std::string& out, int depth) : out_(out), depth_(depth) {}
  JsonText& begin_object();
  JsonText& end_object();
  JsonText& begin_array();
  JsonText& end_array();
  JsonText& key(std::string_view name);  // a field name of the program's (not escaped); then one value
  JsonText& value(double v);
  JsonText& value(std::int64_t v);
  JsonText& value(std::uint64_t v);
  JsonText& value(std::string_view s);
  bool finite() const { return finite_; }

 private:
  void before_value();
  void close(char bracket);
  void indent(int depth);

  std::string& out_;
  int depth_;
  // Per open container: whether it holds nothing yet; after a key, its value goes on the same line.
  std::vector<bool> empty_;
  bool after_key_ = false;
  bool finite_ = true;
};

// Between the rows of an array at depth 1 of a document (a top-level key's array): before row 0 a line
// break, before every later row a comma and a line break. Rows written as JsonText(out, 2).
inline std::string_view json_array_separator(std::uint64_t row) { return row == 0 ? "\n" : ",\n"; }
// What ends such an array after its rows.
inline std::string_view json_array_close(std::uint64_t rows) { return rows == 0 ? "]" : "\n  ]"; }

// json_output_text(value, file) cut after the opening bracket of each top-level array `keys` names
// (each must be a top-level key whose value is an empty array; keys in the document's, sorted, order):
// keys.size() + 1 pieces. With each array's rows written between, the pieces join into the text the
// document with those rows would dump to. InputError for a number that is not finite, as
// json_output_text.
std::vector<std::string> split_json_output(const nlohmann::json& value, std::initializer_list<std::string_view> keys,
                                           const std::string& file);

}  // namespace hetperf
