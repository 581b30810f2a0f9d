// The options of `hetperf validate` (validate_options.cpp), into the validate stage's options.
#pragma once

#include <CLI/CLI.hpp>

#include "hetperf/validate/validate.hpp"

namespace hetperf::cli {

void add_validate_options(CLI::App* cmd, validate::ValidateOptions* o);

}  // namespace hetperf::cli
