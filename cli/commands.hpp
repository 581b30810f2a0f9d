// The hetperf subcommands: each registers its options on the app and returns the action to run.
// Actions return the process exit code; errors are thrown (InputError -> 2, EnvironmentError -> 3).
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace hetperf::cli {

using Action = std::function<int()>;

// `command_line` is the full command as typed, recorded for provenance in every output.
void add_probe_command(CLI::App& app, const std::string& command_line, Action& action);
void add_calibrate_command(CLI::App& app, const std::string& command_line, Action& action);
void add_predict_command(CLI::App& app, const std::string& command_line, Action& action);
void add_schedule_command(CLI::App& app, const std::string& command_line, Action& action);
void add_check_command(CLI::App& app, const std::string& command_line, Action& action);
void add_trace_view_command(CLI::App& app, const std::string& command_line, Action& action);
void add_trace_diff_command(CLI::App& app, const std::string& command_line, Action& action);
void add_validate_command(CLI::App& app, const std::string& command_line, Action& action);
void add_export_command(CLI::App& app, const std::string& command_line, Action& action);
void add_redistribution_command(CLI::App& app, const std::string& command_line, Action& action);
void add_testbed_command(CLI::App& app, const std::string& command_line, Action& action);

}  // namespace hetperf::cli
