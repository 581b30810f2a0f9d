// Running another program: the one place hetperf starts a process (the MPI launcher, gnuplot, the
// applications under validation). No shell: the arguments go to execvp as they are, so nothing needs
// quoting; the child leads its own process group, reads /dev/null, is sent SIGTERM when hetperf dies
// (PR_SET_PDEATHSIG), and its standard output is captured (or left alone).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hetperf {

struct CommandResult {
  int status = 0;      // exit status, or 128 + signal
  std::string output;  // standard output, when captured
};

struct CommandOptions {
  std::filesystem::path directory;  // working directory of the child; empty: ours
  bool capture_stdout = true;       // false: the child writes to our standard output
  // Polled while the child runs; when it returns true the child's group is terminated (SIGTERM, then
  // SIGKILL), reaped, and CommandStopped thrown.
  std::function<bool()> stop_requested = {};
  // Called with the child's pid once it runs; what it returns is kept until the child is reaped (a
  // registration with an emergency clean-up, for example).
  std::function<std::shared_ptr<void>(pid_t)> on_start = {};
};

class CommandStopped : public std::runtime_error {
 public:
  CommandStopped() : std::runtime_error("command stopped") {}
};

// Runs `argv` (argv[0] looked up in PATH). EnvironmentError when it cannot start.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// `argv` as one line a user can paste into a shell (for messages; arguments are quoted as needed).
std::string display_command(const std::vector<std::string>& argv);

// The first `name` on PATH that is executable; nullopt when none.
std::optional<std::filesystem::path> find_on_path(const std::string& name);

// Runs gnuplot on `script` in `directory`; EnvironmentError naming the script when gnuplot is missing
// or fails.
void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& directory = {});

}  // namespace hetperf
