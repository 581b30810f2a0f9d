// HETPERF_CHECK's failure path: report where the invariant broke, then abort.
#include "hetperf/model/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace hetperf {

void check_failed(const char* condition, const char* file, int line, const std::string& detail) {
  std::fprintf(stderr, "hetperf: internal error at %s:%d: check '%s' failed: %s\n", file, line, condition,
               detail.c_str());
  std::abort();
}

}  // namespace hetperf
