// Sampled predictions over MPI ranks (see sample_split.hpp).
#include "hetperf/apps/mpi/sample_split.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string>

namespace hetperf::apps {
namespace {

// Rank r's block of `total` samples: [first, first + count).
std::pair<std::size_t, std::size_t> block(std::size_t total, int ranks, int r) {
  const std::size_t base = total / static_cast<std::size_t>(ranks), extra = total % static_cast<std::size_t>(ranks);
  const auto rr = static_cast<std::size_t>(r);
  return {rr * base + std::min(rr, extra), base + (rr < extra ? 1 : 0)};
}

// Every sampled value in a fixed order: per job its times, its typical times, then per instance its
// responses.
std::vector<double> flatten(const SampledAppJobs& s) {
  std::vector<double> out;
  for (std::size_t j = 0; j < s.time_s.size(); ++j) {
    out.insert(out.end(), s.time_s[j].begin(), s.time_s[j].end());
    out.insert(out.end(), s.typical_s[j].begin(), s.typical_s[j].end());
    for (const auto& p : s.process_response_s[j]) out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

}  // namespace

bool launched_by_mpiexec() {
  const char* size = std::getenv("PMI_SIZE");
  return size && std::atoi(size) > 1;
}

SplitSamples sample_app_jobs_split(const Profile& profile, const std::vector<AppJob>& jobs, std::size_t samples,
                                   std::uint64_t seed, unsigned threads) {
  SplitSamples out;
  if (!launched_by_mpiexec()) {
    out.samples = sample_app_jobs(profile, jobs, samples, seed, threads);
    return out;
  }
  MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  out.root = rank == 0;
  out.processes = size;
  const auto [first, count] = block(samples, size, rank);
  const SampledAppJobs mine = sample_app_jobs(profile, jobs, first, count, seed, threads);
  // Values: each rank's flattened block; the root reassembles them in sample order.
  const std::vector<double> values = flatten(mine);
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  const int n = static_cast<int>(values.size());
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<double> all(out.root ? static_cast<std::size_t>(displacements.back() + counts.back()) : 0);
  MPI_Gatherv(values.data(), n, MPI_DOUBLE, all.data(), counts.data(), displacements.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  // Warnings: each rank's, one per line.
  std::string text;
  for (const auto& w : mine.warnings) text += w + "\n";
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string joined(out.root ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  MPI_Finalize();
  if (!out.root) return out;

  SampledAppJobs& s = out.samples;
  s.time_s.assign(jobs.size(), std::vector<double>(samples));
  s.typical_s.assign(jobs.size(), std::vector<double>(samples));
  s.process_response_s.resize(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    s.process_response_s[j].assign(mine.process_response_s[j].size(), std::vector<double>(samples));
  }
  for (int r = 0; r < size; ++r) {
    const auto [from, length_r] = block(samples, size, r);
    std::size_t k = static_cast<std::size_t>(displacements[r]);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      for (std::size_t i = 0; i < length_r; ++i) s.time_s[j][from + i] = all[k++];
      for (std::size_t i = 0; i < length_r; ++i) s.typical_s[j][from + i] = all[k++];
      for (auto& p : s.process_response_s[j]) {
        for (std::size_t i = 0; i < length_r; ++i) p[from + i] = all[k++];
      }
    }
  }
  std::size_t pos = 0;
  while (pos < joined.size()) {
    const std::size_t nl = joined.find('\n', pos);
    s.warnings.insert(joined.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace hetperf::apps
