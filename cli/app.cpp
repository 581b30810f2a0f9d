// The hetperf command line: the app with its subcommands, the parse, the action and its errors.
#include "app.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <stdexcept>

#include "commands.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/version.hpp"

namespace hetperf::cli {
namespace {

// What a command printed must have reached its destination: a full disk or a closed pipe behind
// stdout is an error, not a silent exit 0 (stdout is buffered, so the write fails only here).
int flush_stdout(int code) {
  errno = 0;
  std::cout.flush();  // through stdout's buffer: a failure here sets its error flag and errno
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  const int err = errno;
  if (failed) {
    std::cerr << "hetperf: cannot run here: cannot write to standard output"
              << (err != 0 ? std::string(": ") + std::strerror(err) : std::string()) << "\n";
    return code == 0 ? 3 : code;
  }
  return code;
}

}  // namespace

int run(int argc, char** argv, bool parse_only) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(i ? argv[i] : "hetperf");

  CLI::App app{
      "hetperf: predicts how parallel programs perform on a cluster of unlike machines.\n"
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
    // Every usage error is a bad input: one line that says what was wrong, and where to read more.
    std::string help = "hetperf --help";
    for (const CLI::App* sub : app.get_subcommands()) help = "hetperf " + sub->get_name() + " --help";
    std::string what = e.what();
    if (what.size() > 300) what = what.substr(0, 297) + "...";
    std::cerr << "hetperf: error: " << what << " (" << help << ")\n";
    return 2;
  }
  if (parse_only) return 0;
  try {
    return flush_stdout(action());
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
