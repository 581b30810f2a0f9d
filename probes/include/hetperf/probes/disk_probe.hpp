// Disk probe (UniMPP's "discio"): buffered write throughput with fdatasync inside the timed region,
// and unbuffered (O_DIRECT) write and read throughput, in a directory of the user's choice. Where the
// file system refuses O_DIRECT (tmpfs, some overlays) it falls back (buffered + fdatasync for writes,
// reads after evicting the file from the page cache) and records why. The page cache is kept out of
// every figure: writes end with fdatasync inside the timed region, and the file's cached pages are
// dropped (posix_fadvise DONTNEED) before each read and each buffered write.
//
// Repeatability: the scratch file is preallocated (fallocate) and written once before any timing, so
// that timed writes overwrite allocated, initialised blocks (no block allocation, no unwritten-extent
// conversion, no discard from truncation in the figures); a sample is one pass over the whole file in
// calls of several MiB; the three headline figures are sampled in interleaved rounds
// (repeat_interleaved), so that slow phases of a shared device fall on all three alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct DiskProbeOptions {
  std::filesystem::path directory = ".";
  std::uint64_t file_size_bytes = 256ull << 20;    // bytes written and read per sample (one pass over the file)
  std::uint64_t buffer_bytes = 4ull << 20;         // bytes per write()/read() call (multiple of 4096)
  double max_fraction_of_free_space = 0.25;        // refuse to run when the file would exceed this
  std::uint64_t max_file_size_bytes = 4ull << 30;  // hard limit on the scratch file, whatever is free
  // Buffer sweep: O_DIRECT write and read throughput per bytes per call (empty: no sweep). Each point
  // writes and reads the first max(sweep_file_size_bytes, buffer) bytes of the scratch file.
  std::vector<std::uint64_t> sweep_buffers_bytes = {4096, 16384, 65536, 262144, 1u << 20, 4u << 20, 16u << 20};
  std::uint64_t sweep_file_size_bytes = 64ull << 20;
  double sweep_time_cap_s = 0;  // time cap of each sweep figure (at most repeat's); 0: repeat's
  RepeatOptions repeat;         // the headline figures (time cap per figure)

  // Empty when valid, else a message naming the option and the rule it breaks.
  std::string validate() const;
  // Size of the scratch file: the largest transfer of any figure, bytes.
  std::uint64_t scratch_file_bytes() const;
};

// EnvironmentError when the directory is unusable or lacks space; InputError for bad options.
DiskMeasurement probe_disk(const DiskProbeOptions& options);

}  // namespace hetperf::probes
