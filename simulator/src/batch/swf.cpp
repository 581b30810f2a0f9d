// Standard Workload Format reader and writer.
#include "hetperf/simulator/batch/swf.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"

namespace hetperf::sim::batch {
namespace {

constexpr std::array<const char*, kSwfFields> kNames = {"job number",
                                                        "submit time",
                                                        "wait time",
                                                        "run time",
                                                        "allocated processors",
                                                        "average CPU time",
                                                        "used memory",
                                                        "requested processors",
                                                        "requested time",
                                                        "requested memory",
                                                        "status",
                                                        "user id",
                                                        "group id",
                                                        "executable number",
                                                        "queue number",
                                                        "partition number",
                                                        "preceding job number",
                                                        "think time"};

// Counts and identifiers; the others (times, memory) may be fractional in some logs and in our output.
bool integer_field(int field) {
  switch (field) {
    case kJobNumber:
    case kAllocatedProcs:
    case kRequestedProcs:
    case kStatus:
    case kUserId:
    case kGroupId:
    case kExecutable:
    case kQueue:
    case kPartition:
    case kPrecedingJob:
      return true;
    default:
      return false;
  }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// "; MaxProcs: 128" -> 128 when the comment names `key`.
std::optional<std::int64_t> header_value(std::string_view comment, std::string_view key) {
  comment = trim(comment);
  if (comment.substr(0, key.size()) != key) return std::nullopt;
  comment = trim(comment.substr(key.size()));
  if (comment.empty() || comment.front() != ':') return std::nullopt;
  comment = trim(comment.substr(1));
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(comment.data(), comment.data() + comment.size(), v);
  if (ec != std::errc() || v <= 0) return std::nullopt;
  return v;
}

// Integers beyond this (2^31 - 1) are no job number, count or identifier a trace holds, and processor
// counts must fit the scheduler's arithmetic with room to spare.
constexpr double kMaxSwfInteger = 2147483647;
// Times beyond this (about 31,700 years) are no trace's.
constexpr double kMaxSwfNumber = 1e12;

[[noreturn]] void fail_field(const std::string& file, std::int64_t line, int field, std::string_view token) {
  if (token.size() > 80) token = token.substr(0, 77);
  throw InputError(file + ":" + std::to_string(line) + ": field " + std::to_string(field) + " (" +
                   swf_field_name(field) + "): expected " +
                   (integer_field(field) ? "an integer in [-1, 2147483647]" : "-1 (missing) or a number in [0, 1e12]") +
                   ", got '" + std::string(token) + (token.size() == 77 ? "...'" : "'"));
}

void append_number(std::string& out, double v) {
  char buf[64];
  std::to_chars_result r;
  if (v == std::floor(v) && std::fabs(v) < 9e15) {
    r = std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(v));
  } else {
    r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  }
  out.append(buf, r.ptr);
}

}  // namespace

const char* swf_field_name(int field) {
  return field >= 1 && field <= kSwfFields ? kNames[static_cast<std::size_t>(field - 1)] : "unknown field";
}

SwfTrace parse_swf(std::string_view text, const std::string& file) {
  SwfTrace trace;
  trace.file = file;
  std::int64_t line_number = 0;
  while (!text.empty()) {
    std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    std::string_view body = trim(line);
    if (body.empty()) continue;
    if (body.front() == ';') {
      std::string_view comment = line.substr(line.find(';') + 1);
      // Every CR at the end goes (a CRLF file, and CRs before it): format_swf ends the line with '\n' only,
      // so a CR kept here would be lost, or read back differently, on the way through a written file.
      while (!comment.empty() && comment.back() == '\r') comment.remove_suffix(1);
      trace.header.emplace_back(comment);
      if (auto v = header_value(comment, "MaxProcs")) trace.max_procs = v;
      if (auto v = header_value(comment, "MaxNodes")) trace.max_nodes = v;
      continue;
    }
    SwfRecord record;
    record.line = line_number;
    int field = 0;
    while (!body.empty()) {
      std::size_t n = 0;
      while (n < body.size() && !is_space(body[n])) ++n;
      std::string_view token = body.substr(0, n);
      body = trim(body.substr(n));
      ++field;
      if (field > kSwfFields) continue;  // counted for the message below
      double v = 0;
      auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
      // -1 is "missing"; any other negative value (-0.5, -5e-324) is no time, count or size.
      if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(v) || (v < 0 && v != -1) ||
          (integer_field(field) && (v != std::floor(v) || v > kMaxSwfInteger)) || v > kMaxSwfNumber) {
        fail_field(file, line_number, field, token);
      }
      record.set(field, v);
    }
    if (field != kSwfFields) {
      throw InputError(file + ":" + std::to_string(line_number) + ": expected " + std::to_string(kSwfFields) +
                       " fields, got " + std::to_string(field));
    }
    trace.records.push_back(record);
  }
  return trace;
}

SwfTrace read_swf(const std::filesystem::path& path) { return parse_swf(read_text_file(path), path.string()); }

std::string format_swf(const SwfTrace& trace) {
  std::string out;
  out.reserve(trace.records.size() * 80 + trace.header.size() * 60);
  for (const auto& h : trace.header) {
    out += ';';
    out += h;
    out += '\n';
  }
  for (const auto& r : trace.records) {
    for (int f = 1; f <= kSwfFields; ++f) {
      if (f > 1) out += ' ';
      append_number(out, r.get(f));
    }
    out += '\n';
  }
  return out;
}

}  // namespace hetperf::sim::batch
