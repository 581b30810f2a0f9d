// Everything a probe creates is registered here and removed when the probe ends, also on SIGINT and
// SIGTERM: the signal handler removes the registered files (async-signal-safe unlink), then lets the
// signal take its course. Probes leave nothing behind.
#pragma once

#include <filesystem>

namespace hetperf::probes {

// Installs the SIGINT/SIGTERM handlers (idempotent).
void install_cleanup_handlers();

// A file that exists only while this object lives; removed by the destructor or the signal handler.
class ScratchFile {
 public:
  explicit ScratchFile(std::filesystem::path path);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int slot_;
};

// True once SIGINT or SIGTERM has arrived (probes check it between samples to stop early).
bool interrupted();

}  // namespace hetperf::probes
