// A validation's reports, one writer per format (validate/src/report_{csv,markdown,pictures}.cpp).
//
//   write_file_atomically(dir / "validation.csv", validation_csv(runs));
//   for (const Picture& p : validation_pictures(runs)) run_gnuplot(p.script(dir / p.file));
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/file_io.hpp"
#include "hetperf/validate/matrix.hpp"

namespace hetperf::validate {

// The reports: CSV (one row per run), Markdown (figures, per-group accuracy, worst runs, table),
// and gnuplot scripts with their data inline (histogram of errors, measured against predicted,
// efficiency per iteration of the removal runs, integration curve). `command` is recorded.
std::string validation_csv(const std::vector<ValidationRun>& runs);
std::string validation_markdown(const std::vector<ValidationRun>& runs, const std::string& command,
                                const nlohmann::json& facts);
struct Picture {
  std::string file;  // "errors-histogram.png"
  std::string body;  // the gnuplot commands after the preamble: data, labels, the plot
  // The whole script (GnuplotScript's preamble, then `body`), drawing into `output`.
  std::string script(const std::filesystem::path& output) const;
};
std::vector<Picture> validation_pictures(const std::vector<ValidationRun>& runs);
// Draws `pictures` with gnuplot in a private directory and adds each to `outputs` as dir / its file;
// returns the files drawn, or nothing when gnuplot is not on PATH.
std::optional<std::vector<std::string>> draw_pictures(const std::vector<Picture>& pictures,
                                                      const std::filesystem::path& dir, OutputSet& outputs);

}  // namespace hetperf::validate
