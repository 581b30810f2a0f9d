// `hetperf trace-diff A B`: whether two traces (say a real run and its simulation) issue the same
// operations and messages on every rank, ignoring times. Exit 0 when they do, 1 with the first
// difference otherwise; 2 for a malformed trace.
#include <cstdio>

#include "commands.hpp"
#include "hetperf/apps/trace_compare.hpp"
#include "hetperf/apps/trace_view.hpp"

namespace hetperf::cli {

void add_trace_diff_command(CLI::App& app, const std::string&, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("trace-diff",
                                     "Compare two traces (hetperf.trace/1) operation by operation, "
                                     "ignoring times: same operations and messages on every rank?");
  cmd->add_option("traces", *files, "The two trace files")->required()->expected(2);
  cmd->callback([&action, files] {
    action = [files] {
      hetperf::TraceFile a = hetperf::read_trace((*files)[0]), b = hetperf::read_trace((*files)[1]);
      std::string diff = apps::first_difference(a, b);
      if (!diff.empty()) {
        std::printf("traces differ: %s\n", diff.c_str());
        return 1;
      }
      std::size_t events = 0;
      for (const auto& r : a.ranks) events += r.events.size();
      std::printf("same operations: %zu ranks, %zu operations (%s: %s, %s: %s)\n", a.ranks.size(), events,
                  a.file.c_str(), a.backend.c_str(), b.file.c_str(), b.backend.c_str());
      return 0;
    };
  });
}

}  // namespace hetperf::cli
