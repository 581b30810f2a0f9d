// The text of a gnuplot script, built the same way for every picture hetperf draws: the preamble
// (terminal, output file), data written inline as datablocks, and strings quoted for gnuplot.
// Running gnuplot on it is the caller's business.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>

namespace hetperf {

// `text` as a gnuplot double-quoted string: backslash and double quote escaped, a line break written
// as \n (gnuplot breaks a title there).
std::string gnuplot_quoted(std::string_view text);

class GnuplotScript {
 public:
  // "# <text>".
  GnuplotScript& comment(std::string_view text);
  // "set terminal <name> size <width_px>,<height_px>[ <options>]", e.g. ("pngcairo", 900, 500) or
  // ("svg", 800, 560, "dynamic noenhanced"). Sizes in pixels.
  GnuplotScript& terminal(std::string_view name, int width_px, int height_px, std::string_view options = "");
  // "set output <file>", quoted: where the next plot is drawn.
  GnuplotScript& output(const std::filesystem::path& file);
  // "$<name> << EOD", `rows` (newline-terminated lines), "EOD": data inline, plotted as $<name>.
  GnuplotScript& datablock(std::string_view name, std::string_view rows);
  // Any other commands, written as they are (numbers as an ostream writes them).
  template <class T>
  GnuplotScript& operator<<(const T& text) {
    text_ << text;
    return *this;
  }

  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
};

}  // namespace hetperf
