// JsonNode: validated access to parsed JSON with file and JSON-path error messages.
#include "hetperf/model/json_node.hpp"

#include <cmath>
#include <sstream>

#include "hetperf/model/error.hpp"

namespace hetperf {
namespace {

// A short rendering of a value for "got ..." (long values are cut).
std::string describe(const nlohmann::json& v) {
  std::string kind;
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array of " + std::to_string(v.size());
    case nlohmann::json::value_t::string:
      kind = "the string ";
      break;
    case nlohmann::json::value_t::boolean:
      kind = "the boolean ";
      break;
    default:
      break;
  }
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return kind + text;
}

const char* expected_text(Range range) {
  switch (range) {
    case Range::kPositive:
      return "a positive number";
    case Range::kNonNegative:
      return "a non-negative number";
    case Range::kFraction:
      return "a number in [0, 1]";
    case Range::kAny:
      break;
  }
  return "a number";
}

// A key as messages echo it: at most 80 characters, so that a huge key makes no huge message.
std::string shown_key(std::string_view key) {
  return key.size() > 80 ? std::string(key.substr(0, 77)) + "..." : std::string(key);
}

std::string member_path(const std::string& parent, std::string_view key) { return parent + "." + shown_key(key); }

}  // namespace

std::optional<std::string> range_violation(double v, Range range) {
  if (!std::isfinite(v)) return "a finite number";
  switch (range) {
    case Range::kAny:
      return std::nullopt;
    case Range::kPositive:
      return v > 0 ? std::nullopt : std::optional<std::string>("a positive number");
    case Range::kNonNegative:
      return v >= 0 ? std::nullopt : std::optional<std::string>("a non-negative number");
    case Range::kFraction:
      return (v >= 0 && v <= 1) ? std::nullopt : std::optional<std::string>("a number in [0, 1]");
  }
  return std::nullopt;
}

JsonNode::JsonNode(const nlohmann::json& value, std::string file, std::string path)
    : JsonNode(&value, std::move(file), std::move(path)) {}

JsonNode::JsonNode(const nlohmann::json* value, std::string file, std::string path)
    : value_(value), file_(std::move(file)), path_(std::move(path)) {}

void JsonNode::fail(std::string_view expected) const {
  throw InputError(file_ + ": " + path_ + ": expected " + std::string(expected) + ", got " + describe(*value_));
}

bool JsonNode::has(std::string_view key) const {
  return value_->is_object() && value_->contains(key) && !(*value_)[std::string(key)].is_null();
}

JsonNode JsonNode::member(std::string_view key, std::string_view expected) const {
  if (!value_->is_object()) fail("an object");
  auto it = value_->find(key);
  if (it == value_->end()) {
    throw InputError(file_ + ": " + member_path(path_, key) + ": missing required field '" + std::string(key) +
                     "' (expected " + std::string(expected) + ")");
  }
  return JsonNode(&*it, file_, member_path(path_, key));
}

JsonNode JsonNode::field(std::string_view key) const { return member(key, "a value"); }

JsonNode JsonNode::object(std::string_view key) const {
  JsonNode n = member(key, "an object");
  if (!n.value_->is_object()) n.fail("an object");
  return n;
}

std::optional<JsonNode> JsonNode::optional(std::string_view key) const {
  if (!value_->is_object()) fail("an object");
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return JsonNode(&*it, file_, member_path(path_, key));
}

std::vector<JsonNode> JsonNode::items(std::size_t min_size) const {
  if (!value_->is_array()) fail("an array");
  if (value_->size() < min_size) fail("an array of at least " + std::to_string(min_size) + " elements");
  std::vector<JsonNode> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    out.push_back(JsonNode(&(*value_)[i], file_, path_ + "[" + std::to_string(i) + "]"));
  }
  return out;
}

std::vector<JsonNode> JsonNode::array(std::string_view key, std::size_t min_size) const {
  return member(key, "an array").items(min_size);
}

double JsonNode::as_number(Range range) const {
  if (!value_->is_number()) fail(expected_text(range));
  double v = value_->get<double>();
  if (auto violated = range_violation(v, range)) fail(*violated);
  return v;
}

std::string JsonNode::as_string() const {
  if (!value_->is_string()) fail("a string");
  return value_->get<std::string>();
}

double JsonNode::number(std::string_view key, Range range) const {
  return member(key, expected_text(range)).as_number(range);
}

double JsonNode::number_or(std::string_view key, double fallback, Range range) const {
  return has(key) ? number(key, range) : fallback;
}

std::int64_t JsonNode::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  std::ostringstream expected;
  expected << "an integer in [" << min << ", " << max << "]";
  JsonNode n = member(key, expected.str());
  const nlohmann::json& v = *n.value_;
  // Each kind of JSON number converted only where it fits an int64: 2^63 parses as an unsigned integer,
  // and 9.3e18 or 2^63 written as a float would convert with undefined behaviour.
  std::optional<std::int64_t> value;
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
      value = static_cast<std::int64_t>(v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    value = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && d >= -0x1p63 && d < 0x1p63) value = static_cast<std::int64_t>(d);
  }
  if (!value || *value < min || *value > max) n.fail(expected.str());
  return *value;
}

std::int64_t JsonNode::integer_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                                  std::int64_t max) const {
  return has(key) ? integer(key, min, max) : fallback;
}

std::string JsonNode::string(std::string_view key) const { return member(key, "a string").as_string(); }

std::string JsonNode::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : fallback;
}

bool JsonNode::boolean_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  JsonNode n = member(key, "a boolean");
  if (!n.value_->is_boolean()) n.fail("a boolean");
  return n.value_->get<bool>();
}

std::string JsonNode::choice(std::string_view key, std::initializer_list<std::string_view> choices) const {
  std::string expected = "one of";
  for (std::size_t i = 0; auto c : choices) expected += (i++ ? ", \"" : " \"") + std::string(c) + "\"";
  JsonNode n = member(key, expected);
  if (!n.value_->is_string()) n.fail(expected);
  std::string v = n.value_->get<std::string>();
  for (auto c : choices) {
    if (v == c) return v;
  }
  n.fail(expected);
}

std::string JsonNode::choice_or(std::string_view key, std::string fallback,
                                std::initializer_list<std::string_view> choices) const {
  return has(key) ? choice(key, choices) : fallback;
}

void JsonNode::known_fields(std::initializer_list<std::string_view> known) const {
  if (!value_->is_object()) fail("an object");
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    bool ok = false;
    for (auto k : known) ok = ok || it.key() == k;
    if (!ok) {
      std::string list;
      for (std::size_t i = 0; auto k : known) list += (i++ ? ", " : "") + std::string(k);
      throw InputError(file_ + ": " + member_path(path_, it.key()) + ": unknown field '" + shown_key(it.key()) +
                       "' (expected one of: " + list + ")");
    }
  }
}

int JsonNode::schema(std::string_view kind, int max_version) const {
  std::string expected = "\"hetperf." + std::string(kind) + "/N\" with N <= " + std::to_string(max_version);
  JsonNode n = member("schema", expected);
  if (!n.value_->is_string()) n.fail(expected);
  std::string s = n.value_->get<std::string>();
  std::string prefix = "hetperf." + std::string(kind) + "/";
  if (s.rfind(prefix, 0) != 0) {
    throw InputError(file_ + ": $.schema: expected a hetperf." + std::string(kind) + " file, got \"" + shown_key(s) +
                     "\" (is this the right file?)");
  }
  std::string version = s.substr(prefix.size());
  int v = 0;
  for (char c : version) {
    if (c < '0' || c > '9' || v > 100000) n.fail(expected);
    v = v * 10 + (c - '0');
  }
  if (version.empty() || v < 1) n.fail(expected);
  if (v > max_version) {
    throw InputError(file_ + ": $.schema: version " + std::to_string(v) + " of hetperf." + std::string(kind) +
                     " is newer than this hetperf reads (up to " + std::to_string(max_version) + "); upgrade hetperf");
  }
  return v;
}

}  // namespace hetperf
