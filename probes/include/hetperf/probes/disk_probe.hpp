// Disk probe (the seed's "discio"): buffered write throughput with fdatasync inside the timed region,
// and unbuffered (O_DIRECT) write and read throughput, in a directory of the user's choice. Where the
// file system refuses O_DIRECT (tmpfs, some overlays) it falls back (buffered + fdatasync for writes,
// reads after evicting the file from the page cache) and records why. The page cache is kept out of
// every figure: writes end with fdatasync inside the timed region, and the file's cached pages are
// dropped (posix_fadvise DONTNEED) before each read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct DiskProbeOptions {
  std::filesystem::path directory = ".";
  std::uint64_t file_size_bytes = 256ull << 20;   // bytes written and read per sample
  std::uint64_t buffer_bytes = 1ull << 20;        // bytes per write()/read() call (multiple of 4096)
  double max_fraction_of_free_space = 0.25;       // refuse to run when the file would exceed this
  std::uint64_t max_file_size_bytes = 4ull << 30; // hard limit on the scratch file, whatever is free
  // Buffer sweep: O_DIRECT write and read throughput per bytes per call (empty: no sweep). Each point
  // writes and reads a file of max(sweep_file_size_bytes, buffer) bytes.
  std::vector<std::uint64_t> sweep_buffers_bytes = {4096, 16384, 65536, 262144, 1u << 20, 4u << 20, 16u << 20};
  std::uint64_t sweep_file_size_bytes = 64ull << 20;
  RepeatOptions repeat;
};

// EnvironmentError when the directory is unusable or lacks space; InputError for bad options.
DiskMeasurement probe_disk(const DiskProbeOptions& options);

}  // namespace hetperf::probes
