// The hetperf command line: builds the CLI11 app with every subcommand, parses argv and runs the
// chosen action. Kept apart from main() so that the parsing can run alone (tests/fuzz/cli_fuzz.cpp).
#pragma once

namespace hetperf::cli {

// Parses argv and, unless `parse_only`, runs the chosen command. Returns the process exit code: 0 for
// help and version, 2 for a usage error or a bad input (the message on stderr), else the action's code.
// With `parse_only` nothing is probed, read or written: the result is 0 once argv parses.
int run(int argc, char** argv, bool parse_only = false);

}  // namespace hetperf::cli
