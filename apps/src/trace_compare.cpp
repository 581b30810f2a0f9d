// Operation-by-operation comparison of two traces (see trace_compare.hpp).
#include "hetperf/apps/trace_compare.hpp"

#include <sstream>

namespace hetperf::apps {
namespace {

std::string describe(const TraceEvent& e) {
  std::ostringstream os;
  os << e.op;
  if (e.iteration >= 0) os << " iteration " << e.iteration;
  if (e.peer >= 0) os << " peer " << e.peer << " tag " << e.tag;
  if (e.bytes) os << " " << e.bytes << " bytes";
  if (e.m || e.n || e.k) os << " dims [" << e.m << ", " << e.n << ", " << e.k << "]";
  return os.str();
}

bool same(const TraceEvent& a, const TraceEvent& b) {
  return a.op == b.op && a.iteration == b.iteration && a.peer == b.peer && a.tag == b.tag && a.bytes == b.bytes &&
         a.m == b.m && a.n == b.n && a.k == b.k;
}

}  // namespace

std::string first_difference(const TraceFile& a, const TraceFile& b) {
  if (a.app != b.app) return "app: " + a.app + " in " + a.file + ", " + b.app + " in " + b.file;
  if (a.ranks.size() != b.ranks.size()) {
    return "ranks: " + std::to_string(a.ranks.size()) + " in " + a.file + ", " + std::to_string(b.ranks.size()) +
           " in " + b.file;
  }
  for (std::size_t r = 0; r < a.ranks.size(); ++r) {
    const auto& ea = a.ranks[r].events;
    const auto& eb = b.ranks[r].events;
    const std::size_t n = std::min(ea.size(), eb.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!same(ea[i], eb[i])) {
        return "rank " + std::to_string(a.ranks[r].rank) + ", operation " + std::to_string(i) + ": " + describe(ea[i]) +
               " in " + a.file + ", " + describe(eb[i]) + " in " + b.file;
      }
    }
    if (ea.size() != eb.size()) {
      const auto& longer = ea.size() > eb.size() ? ea : eb;
      return "rank " + std::to_string(a.ranks[r].rank) + ": " + std::to_string(ea.size()) + " operations in " + a.file +
             ", " + std::to_string(eb.size()) + " in " + b.file + " (next: " + describe(longer[n]) + ")";
    }
  }
  return {};
}

}  // namespace hetperf::apps
