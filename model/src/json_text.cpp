// JSON text piece by piece, as nlohmann::json dumps it (see json_text.hpp).
#include "hetperf/model/json_text.hpp"

#include <charconv>
#include <cmath>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"

namespace hetperf {

void append_json_number(std::string& out, double v) {
  // nlohmann's own conversion (Grisu2, then its %g-like layout), which dump() calls for every double:
  // std::to_chars gives the shortest digits, which Grisu2 does not always, so only this one matches.
  char buffer[64];
  char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, end);
}

void append_json_integer(std::string& out, std::int64_t v) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

void append_json_unsigned(std::string& out, std::uint64_t v) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

void append_json_string(std::string& out, std::string_view s) {
  // Printable ASCII without quotes or backslashes is written as it is; anything else (escapes, UTF-8,
  // whose validity nlohmann checks) goes through nlohmann itself.
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {
      out += nlohmann::json(std::string(s)).dump();
      return;
    }
  }
  out += '"';
  out += s;
  out += '"';
}

void JsonText::indent(int depth) { out_.append(static_cast<std::size_t>(2 * depth), ' '); }

void JsonText::before_value() {
  if (empty_.empty()) {
    indent(depth_);
  } else if (after_key_) {
    after_key_ = false;
  } else {  // an array's element
    out_ += empty_.back() ? "\n" : ",\n";
    empty_.back() = false;
    indent(depth_ + static_cast<int>(empty_.size()));
  }
}

JsonText& JsonText::begin_object() {
  before_value();
  out_ += '{';
  empty_.push_back(true);
  return *this;
}

JsonText& JsonText::begin_array() {
  before_value();
  out_ += '[';
  empty_.push_back(true);
  return *this;
}

void JsonText::close(char bracket) {
  HETPERF_CHECK(!empty_.empty() && !after_key_, "closing a container that is not open");
  const bool was_empty = empty_.back();
  empty_.pop_back();
  if (!was_empty) {
    out_ += '\n';
    indent(depth_ + static_cast<int>(empty_.size()));
  }
  out_ += bracket;
}

JsonText& JsonText::end_object() {
  close('}');
  return *this;
}

JsonText& JsonText::end_array() {
  close(']');
  return *this;
}

JsonText& JsonText::key(std::string_view name) {
  HETPERF_CHECK(!empty_.empty() && !after_key_, "a key outside an object");
  out_ += empty_.back() ? "\n" : ",\n";
  empty_.back() = false;
  indent(depth_ + static_cast<int>(empty_.size()));
  // Keys are the program's own field names, plain ASCII: written as they are.
  out_ += '"';
  out_ += name;
  out_ += "\": ";
  after_key_ = true;
  return *this;
}

JsonText& JsonText::value(double v) {
  before_value();
  if (std::isfinite(v))
    append_json_number(out_, v);
  else
    finite_ = false, out_ += "null";
  return *this;
}

JsonText& JsonText::value(std::int64_t v) {
  before_value();
  append_json_integer(out_, v);
  return *this;
}

JsonText& JsonText::value(std::uint64_t v) {
  before_value();
  append_json_unsigned(out_, v);
  return *this;
}

JsonText& JsonText::value(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  return *this;
}

std::vector<std::string> split_json_output(const nlohmann::json& value, std::initializer_list<std::string_view> keys,
                                           const std::string& file) {
  const std::string text = json_output_text(value, file);
  std::vector<std::string> pieces;
  std::size_t from = 0;
  for (std::string_view key : keys) {
    // A top-level key is the only one indented by exactly two spaces.
    const std::string needle = "\n  \"" + std::string(key) + "\": []";
    const std::size_t at = text.find(needle, from);
    HETPERF_CHECK(at != std::string::npos, "split_json_output: no empty top-level array " + std::string(key));
    pieces.push_back(text.substr(from, at + needle.size() - 1 - from));  // up to and including '['
    from = at + needle.size();                                           // past ']'
  }
  pieces.push_back(text.substr(from));
  return pieces;
}

}  // namespace hetperf
