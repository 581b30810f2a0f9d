// A simulation's event rate, measured here in the CLI and printed on stderr. The simulator keeps no
// wall clock (the same inputs and seed give byte-identical outputs), so the rate is never in an
// output file: the summary there holds the event count alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "output.hpp"

namespace hetperf::cli {

// Sums the wall time of the simulation calls it is started and stopped around.
class EventRate {
 public:
  void start() { started_ = std::chrono::steady_clock::now(); }
  void stop() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(); }
  // "hetperf predict: 1.234 M events in 0.5012 s of simulation, 2.462 M events/s"
  void report(const char* command, std::uint64_t events) const {
    std::fprintf(stderr, "hetperf %s: %llu events in %.4g s of simulation, %s\n", command,
                 static_cast<unsigned long long>(events), seconds_,
                 seconds_ > 0 ? si(static_cast<double>(events) / seconds_, "events/s").c_str() : "rate not measurable");
  }

 private:
  std::chrono::steady_clock::time_point started_{};
  double seconds_ = 0;
};

}  // namespace hetperf::cli
