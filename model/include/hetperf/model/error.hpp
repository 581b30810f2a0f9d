// Errors: InputError for anything a user handed us (exit code 2), HETPERF_CHECK for broken invariants.
#pragma once

#include <stdexcept>
#include <string>

namespace hetperf {

// A bad input file, option or value. The message is complete and user-facing:
// "<file>: <json path or line>: <field>: expected <what>, got <what>". The CLI prints it and exits 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// The environment refused something we need (a probe cannot run, a tool is missing). Exit code 3.
class EnvironmentError : public std::runtime_error {
 public:
  explicit EnvironmentError(const std::string& message) : std::runtime_error(message) {}
};

[[noreturn]] void check_failed(const char* condition, const char* file, int line, const std::string& detail);

}  // namespace hetperf

// A bug stops the program with its location; it is never used for user input.
#define HETPERF_CHECK(cond, detail)                                          \
  do {                                                                       \
    if (!(cond)) ::hetperf::check_failed(#cond, __FILE__, __LINE__, detail); \
  } while (0)
