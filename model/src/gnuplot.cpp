// gnuplot script text: the preamble, inline datablocks and quoting shared by every picture.
#include "hetperf/model/gnuplot.hpp"

namespace hetperf {

std::string gnuplot_quoted(std::string_view text) {
  std::string q = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\')
      q += '\\', q += ch;
    else if (ch == '\n')
      q += "\\n";
    else
      q += ch;
  }
  return q + "\"";
}

GnuplotScript& GnuplotScript::comment(std::string_view text) { return *this << "# " << text << "\n"; }

GnuplotScript& GnuplotScript::terminal(std::string_view name, int width_px, int height_px, std::string_view options) {
  *this << "set terminal " << name << " size " << width_px << "," << height_px;
  if (!options.empty()) *this << " " << options;
  return *this << "\n";
}

GnuplotScript& GnuplotScript::output(const std::filesystem::path& file) {
  return *this << "set output " << gnuplot_quoted(file.string()) << "\n";
}

GnuplotScript& GnuplotScript::datablock(std::string_view name, std::string_view rows) {
  return *this << "$" << name << " << EOD\n" << rows << "EOD\n";
}

}  // namespace hetperf
