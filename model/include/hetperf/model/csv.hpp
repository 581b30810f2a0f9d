// CSV as every hetperf output writes it (RFC 4180): a header line, then one line per row; a field is
// quoted only when it holds a comma, a double quote or a line break; numbers are written in the
// shortest form that reads back as the same double.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <utility>

namespace hetperf {

// The shortest text that reads back as exactly `v` (std::to_chars).
std::string csv_number(double v);
// `field` as a CSV field: as it is, or quoted with its quotes doubled.
std::string csv_field(std::string_view field);

class CsvWriter {
 public:
  // `header`: the column names, comma-separated.
  explicit CsvWriter(std::string_view header);
  // A number must be finite (CSV readers disagree on "inf" and "nan", and only an extreme input leads
  // there): InputError naming its column and row otherwise.

  CsvWriter& operator<<(std::string_view text);
  CsvWriter& operator<<(const std::string& text) { return *this << std::string_view(text); }
  CsvWriter& operator<<(const char* text) { return *this << std::string_view(text); }
  CsvWriter& operator<<(double v);
  template <std::integral T>
  CsvWriter& operator<<(T v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  // An empty field (a column that does not apply to this row).
  CsvWriter& blank();
  // Ends the current row.
  void end_row();
  const std::string& str() const { return out_; }
  // The text written since the last take (the header included the first time), for output that is
  // written out as it grows.
  std::string take() { return std::exchange(out_, std::string()); }

 private:
  void separate();

  std::string out_;
  std::string header_;
  std::size_t column_ = 0, row_ = 1;
  bool row_started_ = false;
};

}  // namespace hetperf
