// JsonNode: a read-only view of one value in a parsed JSON file that knows the file and its JSON path,
// so every validation error names the file, the path of the field and what was expected.
//   profile.json: $.computers[2].mips: expected a positive number, got -3
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf {

// The valid range of a number field.
enum class Range { kAny, kPositive, kNonNegative, kFraction /* [0, 1] */ };

class JsonNode {
 public:
  // `value` must outlive the node and every node derived from it.
  JsonNode(const nlohmann::json& value, std::string file, std::string path = "$");

  const nlohmann::json& value() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

  // Throws InputError "<file>: <path>: expected <expected>, got <a short rendering of the value>".
  [[noreturn]] void fail(std::string_view expected) const;

  bool is_object() const { return value_->is_object(); }
  bool has(std::string_view key) const;

  // Object access. A missing required field is an error naming the field and what it should hold.
  JsonNode field(std::string_view key) const;                    // required member of any type
  JsonNode object(std::string_view key) const;                   // required object member
  std::optional<JsonNode> optional(std::string_view key) const;  // absent or null -> nullopt
  std::vector<JsonNode> array(std::string_view key, std::size_t min_size = 0) const;
  std::vector<JsonNode> items(std::size_t min_size = 0) const;  // this node must be an array

  double number(std::string_view key, Range range = Range::kAny) const;
  double number_or(std::string_view key, double fallback, Range range = Range::kAny) const;
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  std::int64_t integer_or(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max) const;
  std::string string(std::string_view key) const;
  std::string string_or(std::string_view key, std::string fallback) const;
  bool boolean_or(std::string_view key, bool fallback) const;

  // This node's own value as a number / string (for array elements).
  double as_number(Range range = Range::kAny) const;
  std::string as_string() const;

  // One of `choices`, or an error listing them.
  std::string choice(std::string_view key, std::initializer_list<std::string_view> choices) const;
  std::string choice_or(std::string_view key, std::string fallback,
                        std::initializer_list<std::string_view> choices) const;

  // Rejects members not in `known` (catches misspelt field names instead of ignoring them).
  void known_fields(std::initializer_list<std::string_view> known) const;

  // Requires `"schema": "hetperf.<kind>/<version>"` with version <= max_version.
  // Returns the version found.
  int schema(std::string_view kind, int max_version) const;

 private:
  JsonNode member(std::string_view key, std::string_view expected) const;
  JsonNode(const nlohmann::json* value, std::string file, std::string path);

  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

// Checks a number against a range; returns the expectation text when it fails, nullopt when valid.
std::optional<std::string> range_violation(double v, Range range);

}  // namespace hetperf
