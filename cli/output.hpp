// Small helpers shared by the subcommands: where outputs go (numbers are shown with hetperf::si).
#pragma once

#include <string>
#include <unistd.h>

#include "hetperf/model/si_text.hpp"

namespace hetperf::cli {

inline bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace hetperf::cli
