// The CSV writer (see csv.hpp).
#include "hetperf/model/csv.hpp"

#include <charconv>
#include <cmath>

#include "hetperf/model/error.hpp"

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

CsvWriter::CsvWriter(std::string_view header) : out_(header), header_(header) { out_ += '\n'; }

void CsvWriter::separate() {
  if (row_started_) {
    out_ += ',';
    ++column_;
  }
  row_started_ = true;
}

CsvWriter& CsvWriter::operator<<(std::string_view text) {
  separate();
  out_ += csv_field(text);
  return *this;
}

CsvWriter& CsvWriter::operator<<(double v) {
  separate();
  if (!std::isfinite(v)) {
    std::string column = std::to_string(column_ + 1);
    std::size_t from = 0;
    for (std::size_t c = 0; c < column_ && from != std::string::npos; ++c) {
      from = header_.find(',', from);
      if (from != std::string::npos) ++from;
    }
    if (from != std::string::npos) column = header_.substr(from, header_.find(',', from) - from);
    throw InputError("CSV column " + column + ", row " + std::to_string(row_) + ": the result is " +
                     (std::isnan(v) ? "not a number" : "infinite") +
                     ", expected a finite number; nothing was "
                     "written (an input figure is beyond what the model can compute with)");
  }
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
  column_ = 0;
  ++row_;
}

}  // namespace hetperf
