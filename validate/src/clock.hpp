// Wall time of the validation's steps, shared by its runs and its experiments.
#pragma once

#include <chrono>

namespace hetperf::validate {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hetperf::validate
