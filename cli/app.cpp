// The hetperf command line: the app with its subcommands, the parse, the action and its errors.
#include "app.hpp"

#include <cstdio>
#include <iostream>
#include <new>
#include <stdexcept>

#include "commands.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf::cli {

int run(int argc, char** argv, bool parse_only) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(i ? argv[i] : "hetperf");

  CLI::App app{"hetperf: predicts how parallel programs perform on a cluster of unlike machines.\n"
               "  hetperf probe      measure this machine (CPU, disk, network) -> measurement file\n"
               "  hetperf calibrate  fit measurement files -> platform profile\n"
               "  hetperf predict    simulate a workload on a profile -> predicted response times\n"
               "  hetperf check      validate hetperf files\n"
               "  hetperf trace-view draw an application trace as a Gantt chart\n"
               "  hetperf trace-diff compare two traces operation by operation (real against simulated)\n"
               "  hetperf validate   predicted against measured on real runs of the applications\n"
               "  hetperf export     a profile for another simulator (SimGrid platform XML)\n"
               "  hetperf testbed    a cluster of unlike computers emulated on this Linux box (root)",
               "hetperf"};
  app.set_version_flag("--version", std::string("hetperf ") + kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);
  Action action;
  add_probe_command(app, command_line, action);
  add_calibrate_command(app, command_line, action);
  add_predict_command(app, command_line, action);
  add_schedule_command(app, command_line, action);
  add_check_command(app, command_line, action);
  add_trace_view_command(app, command_line, action);
  add_trace_diff_command(app, command_line, action);
  add_validate_command(app, command_line, action);
  add_export_command(app, command_line, action);
  add_redistribution_command(app, command_line, action);
  add_testbed_command(app, command_line, action);
  // A word that names no command is an error even with --help after it (CLI11 would show the general
  // help and exit 0, as if the command existed).
  std::string known;
  bool is_command = false;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    known += (known.empty() ? "" : ", ") + sub->get_name();
    is_command |= argc > 1 && sub->get_name() == argv[1];
  }
  if (argc > 1 && argv[1][0] != '-' && !is_command) {
    std::cerr << "hetperf: error: unknown command '" << argv[1] << "'; the commands are " << known
              << " (hetperf --help)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // every usage error is a bad input
  }
  if (parse_only) return 0;
  try {
    return action();
  } catch (const InputError& e) {
    std::cerr << "hetperf: error: " << e.what() << "\n";
    return 2;
  } catch (const EnvironmentError& e) {
    std::cerr << "hetperf: cannot run here: " << e.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    // Runs are estimated and refused up front (--max-memory); this is what the estimate missed.
    std::cerr << "hetperf: error: out of memory; nothing was written. Shrink the run (fewer processes, "
                 "--summary-only) or give it more memory\n";
    return 2;
  } catch (const std::length_error&) {
    std::cerr << "hetperf: error: a size beyond what this machine can hold; nothing was written. Shrink the run\n";
    return 2;
  }
}

}  // namespace hetperf::cli
