// Disk probe (the seed's "discio"): buffered write throughput with fdatasync inside the timed region,
// and unbuffered (O_DIRECT) write and read throughput, in a directory of the user's choice. Where the
// file system refuses O_DIRECT (tmpfs, some overlays) it falls back (buffered + fdatasync for writes,
// reads after evicting the file from the page cache) and records why.
#pragma once

#include <cstdint>
#include <filesystem>

#include "hetperf/model/measurement.hpp"
#include "hetperf/probes/repeat.hpp"

namespace hetperf::probes {

struct DiskProbeOptions {
  std::filesystem::path directory = ".";
  std::uint64_t file_size_bytes = 256ull << 20;   // bytes written and read per sample
  std::uint64_t buffer_bytes = 1ull << 20;        // bytes per write()/read() call (multiple of 4096)
  double max_fraction_of_free_space = 0.25;       // refuse to run when the file would exceed this
  RepeatOptions repeat;
};

// EnvironmentError when the directory is unusable or lacks space; InputError for bad options.
DiskMeasurement probe_disk(const DiskProbeOptions& options);

}  // namespace hetperf::probes
