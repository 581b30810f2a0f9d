// The validation's Markdown report: figures, per-group accuracy, worst runs, every run (see reports.hpp).
#include "hetperf/validate/reports.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "hetperf/validate/statistics.hpp"
#include "text.hpp"

namespace hetperf::validate {
using namespace apps;
using text::fixed;
using text::percent;

std::string validation_markdown(const std::vector<ValidationRun>& runs, const std::string& command,
                                const nlohmann::json& facts) {
  std::ostringstream os;
  Accuracy all = accuracy(runs);
  os << "# Validation: predicted against measured\n\n";
  os << "Command: `" << command << "`\n\n";
  if (facts.is_object()) {
    for (const auto& [k, v] : facts.items())
      os << "- " << k << ": " << (v.is_string() ? v.get<std::string>() : v.dump()) << "\n";
    os << "\n";
  }
  os << "## Accuracy\n\n";
  os << all.runs << " runs: **" << percent(all.within_5) << " within ±5%**, **" << percent(all.within_10)
     << " within ±10%** (target: 60% and 90%); mean |error| " << percent(all.mean_abs_error) << ", worst "
     << percent(all.max_abs_error) << " (" << all.worst_run << ").\n\n";
  os << "Noise floor: the repeats of one run spread by " << percent(all.median_spread)
     << " (median of (max − min) / median); the repeats alone of " << percent(all.spread_over_10)
     << " of the runs span more than ±5% of their median.\n\n";
  os << "| group | runs | within ±5% | within ±10% | mean abs error | worst |\n|---|---|---|---|---|---|\n";
  std::map<std::string, std::vector<ValidationRun>> groups;
  for (const auto& r : runs) groups[r.group].push_back(r);
  for (const auto& [g, list] : groups) {
    Accuracy a = accuracy(list);
    os << "| " << g << " | " << a.runs << " | " << percent(a.within_5) << " | " << percent(a.within_10) << " | "
       << percent(a.mean_abs_error) << " | " << percent(a.max_abs_error) << " " << a.worst_run << " |\n";
  }
  std::vector<const ValidationRun*> sorted;
  for (const auto& r : runs) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ValidationRun* a, const ValidationRun* b) {
    return std::fabs(a->error()) > std::fabs(b->error());
  });
  os << "\n## Worst runs\n\n| run | ranks | measured s | predicted s | error |\n|---|---|---|---|---|\n";
  for (std::size_t k = 0; k < std::min<std::size_t>(10, sorted.size()); ++k) {
    const auto& r = *sorted[k];
    os << "| " << r.id << " | " << r.ranks << " | " << fixed(r.measured_s, 4) << " | " << fixed(r.predicted_s, 4)
       << " | " << percent(r.error()) << " |\n";
  }
  os << "\n## Every run\n\n| run | group | ranks | measured s (median) | samples | spread | predicted s | error |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : runs) {
    os << "| " << r.id << " | " << r.group << " | " << r.ranks << " | " << fixed(r.measured_s, 4) << " | "
       << r.measured_samples_s.size() << " | " << percent(r.spread()) << " | " << fixed(r.predicted_s, 4) << " | "
       << percent(r.error()) << " |\n";
  }
  os << "\nPictures: errors-histogram.png (the DPS paper's Figure 13), measured-vs-predicted.png, "
        "efficiency-removal.png (Figures 11-12), integration-curve.png (Tables 3 and 7).\n";
  return os.str();
}

}  // namespace hetperf::validate
