// `hetperf testbed`: parses the options of up, down, exec, launch and status, and calls the testbed
// of the validate stage (validate/include/hetperf/validate/testbed.hpp).
#include <cstdlib>

#include "commands.hpp"
#include "testbed_args.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/validate/testbed.hpp"

namespace hetperf::cli {
namespace {

// NAME [--] WORDS...: the computer, then the command (CLI11 leaves both to us with prefix_command,
// so that the command's own options are not taken for ours).
std::pair<std::string, std::vector<std::string>> computer_and_command(CLI::App* sub) {
  std::vector<std::string> rest = sub->remaining();
  if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
  if (rest.empty()) throw CLI::ValidationError(sub->get_name(), "expected a computer's name and a command");
  std::string computer = rest.front();
  rest.erase(rest.begin());
  if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
  if (rest.empty())
    throw CLI::ValidationError(sub->get_name(), "expected a command after the computer's name " + computer);
  return {computer, rest};
}

}  // namespace

void add_testbed_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto a = std::make_shared<TestbedArgs>();
  a->options.command = command_line;
  CLI::App* cmd = app.add_subcommand(
      "testbed",
      "A cluster of unlike computers emulated on this Linux box (root): network namespaces with their own "
      "hostnames on a bridge, links shaped with tc, CPU sets, CPU caps and memory limits. See docs/testbed.md.");
  cmd->require_subcommand(1);
  // The environment can move it too: hydra calls the launcher with no options of ours.
  if (const char* dir = std::getenv("HETPERF_TESTBED_STATE_DIR"); dir && *dir) a->options.state_dir = dir;
  cmd->add_option("--state-dir", a->options.state_dir,
                  "Where testbeds keep their state files (default also from HETPERF_TESTBED_STATE_DIR)")
      ->capture_default_str();

  CLI::App* up = cmd->add_subcommand("up",
                                     "Create the computers of a testbed spec (docs/formats.md); refuses while a "
                                     "testbed of that name, even half-built, exists");
  up->add_option("--spec", a->spec, "Testbed spec (JSON)")->required();
  up->add_option("--step-delay-ms", a->options.step_delay_ms,
                 "Pause before each resource (for tests that kill `up` midway)")
      ->check(CLI::Range(0, 10000))
      ->group("");
  up->callback([&action, a] { action = [a] { return run_up(*a); }; });

  CLI::App* down = cmd->add_subcommand("down",
                                       "Remove a testbed and everything in it (processes too), from its state "
                                       "file: also after a crash or a kill -9 of `up`");
  down->add_option("--name", a->name, "Testbed to remove (default: the only one that is up)");
  down->add_option("--spec", a->spec, "... or the one this spec names");
  down->callback([&action, a] { action = [a] { return run_down(*a); }; });

  CLI::App* exec = cmd->add_subcommand("exec",
                                       "Run a command inside a computer (its network and UTS namespaces and "
                                       "its cgroups): hetperf testbed exec NAME -- CMD ARGS...");
  exec->add_option("--testbed", a->testbed,
                   "Testbed of the computer (default: the one that has a computer of that name)");
  exec->prefix_command();
  exec->callback([&action, a, exec] {
    auto [computer, argv] = computer_and_command(exec);
    action = [a, computer = std::move(computer), argv = std::move(argv)]() -> int {
      validate::testbed_exec(a->testbed, computer, argv, a->options);
    };
  });

  // What MPICH's hydra calls as its rsh launcher: `launcher HOST WORD...`, where the words are a
  // command line for a remote shell (hydra quotes the proxy's path), as ssh would receive them.
  CLI::App* launch = cmd->add_subcommand("launch",
                                         "MPICH hydra's launcher (-launcher rsh -launcher-exec "
                                         "hetperf-testbed-launcher): HOST WORDS... runs `sh -c WORDS` in HOST");
  launch->prefix_command();
  launch->callback([&action, a, launch] {
    auto [host, words] = computer_and_command(launch);
    action = [a, host = std::move(host), words = std::move(words)]() -> int {
      std::string line;
      for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
      validate::testbed_exec({}, host, {"sh", "-c", line}, a->options);
    };
  });

  CLI::App* status =
      cmd->add_subcommand("status", "The testbeds that are up: their computers, addresses and notes (JSON)");
  status->add_option("--name", a->name, "Only this testbed");
  status->callback([&action, a] { action = [a] { return run_status(*a); }; });
}

}  // namespace hetperf::cli
