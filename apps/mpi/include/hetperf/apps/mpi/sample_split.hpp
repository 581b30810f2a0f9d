// Sampled predictions spread over the processes of an MPI launch: `mpiexec -n N hetperf
// predict --samples K` gives each process a block of the K samples (each on all its threads) and
// gathers them on rank 0, which alone writes the output. Each sample depends on the seed and its index
// only, so the output is byte-identical to one process's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hetperf/apps/sim/app_jobs.hpp"

namespace hetperf::apps {

// True when this process was started by an MPI launcher with more than one process (hydra's PMI_SIZE).
bool launched_by_mpiexec();

struct SplitSamples {
  bool root = true;  // rank 0 (or no launcher): holds every sample, and writes the output
  int processes = 1;
  SampledAppJobs samples;  // on the root: all of them, in sample order
};

// Under a launcher: MPI is started and finished here, each rank samples its block, rank 0 gathers.
// Without one: sample_app_jobs on this process alone.
SplitSamples sample_app_jobs_split(const Profile& profile, const std::vector<AppJob>& jobs, std::size_t samples,
                                   std::uint64_t seed, unsigned threads);

}  // namespace hetperf::apps
