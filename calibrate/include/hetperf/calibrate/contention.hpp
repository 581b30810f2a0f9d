// A calibration experiment for a term of real hardware that micro-benchmarks in isolation do not
// show (docs/validation.md): what a rank waiting in MPI costs the computing ones (MPICH polls). How
// much BLAS kernels slow each other on the cores of one computer is the cpu probe's concurrent copies,
// and the hand-off of a rank blocked in MPI on an oversubscribed computer the net probe's fan-out. Each runs the real
// applications through a runner the caller gives (so this library starts no process itself), fits its
// figure, and returns a summary (options in, summary out). Their configurations are not among those `hetperf validate`
// validates.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf::calibrate {

// Runs `copies` launches of `mpiexec -n ranks args...` at once and returns each one's summary line
// (the applications' JSON {"app", "config", "summary", "usage"}).
using ProgramRunner =
    std::function<std::vector<nlohmann::json>(int copies, int ranks, const std::vector<std::string>& args)>;

struct ContentionOptions {
  int cores = 2;                  // of the computer the runs go on (>= 1)
  int repeats = 3;                // runs per measured figure; the median is taken (>= 1)
  bool quick = false;             // shorter runs
  std::string integrate_program;  // hetperf-integrate
  std::string scratch;            // directory for the integration's disk writes
};

struct ContentionSummary {
  std::string figure;  // "waiting_share"
  double value = 0;
  nlohmann::json record;  // the runs and the arithmetic, for the profile's "fits"
  std::string brief_report() const;
};

// The CPU share of a waiting rank: one integration instance alone, then one instance per core: C
// workers and C waiting masters on C cores give each worker 1 / (1 + w) of a core. The share is read
// off the workers' integration calls, their wall time over their CPU time (q1 alone, qC beside the
// masters): w = qC / q1 − 1 (clamped to [0, 1]), q1 the least of the runs alone (what else runs on
// a core only adds to it) and qC the median of the runs beside the masters. The mean responses' ratio
// tC / t1 − 1 is recorded beside it (`from_response_times`): it moves with the computer's speed
// between the runs.
ContentionSummary measure_waiting_share(const ContentionOptions& options, const ProgramRunner& run);

// Runs one launch with rank i on computer hosts[i] (a testbed's, a cluster's); its summary line.
using PlacedRunner =
    std::function<nlohmann::json(const std::vector<std::string>& hosts, const std::vector<std::string>& args)>;

// The same share on one computer of several: `options.cores` integration instances with their workers
// on `computer`, first with their masters on `elsewhere` (t1), then with the masters beside the
// workers (tC), after one warm-up run and alternating, `repeats` times each: w = qC / q1 − 1 from the
// workers' wall / CPU time as above (clamped to [0, 1]). On a one-core computer the second is one
// worker sharing its core with one waiting master.
ContentionSummary measure_waiting_share_on(const ContentionOptions& options, const std::string& computer,
                                           const std::string& elsewhere, const PlacedRunner& run);

}  // namespace hetperf::calibrate
