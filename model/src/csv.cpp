// The CSV writer (see csv.hpp).
#include "hetperf/model/csv.hpp"

#include <charconv>

namespace hetperf {

std::string csv_number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

CsvWriter::CsvWriter(std::string_view header) : out_(header) { out_ += '\n'; }

void CsvWriter::separate() {
  if (row_started_) out_ += ',';
  row_started_ = true;
}

CsvWriter& CsvWriter::operator<<(std::string_view text) {
  separate();
  out_ += csv_field(text);
  return *this;
}

CsvWriter& CsvWriter::operator<<(double v) {
  separate();
  out_ += csv_number(v);
  return *this;
}

CsvWriter& CsvWriter::blank() {
  separate();
  return *this;
}

void CsvWriter::end_row() {
  out_ += '\n';
  row_started_ = false;
}

}  // namespace hetperf
