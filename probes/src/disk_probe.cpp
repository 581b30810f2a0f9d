// Disk probe: buffered write + fdatasync, O_DIRECT write and read, with fallbacks that say why.
#include "hetperf/probes/disk_probe.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::probes {
namespace {

constexpr std::uint64_t kAlign = 4096;

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

[[noreturn]] void io_error(const std::filesystem::path& p, const char* what) {
  throw EnvironmentError(p.string() + ": " + what + ": " + std::strerror(errno));
}

// Writes `size` bytes from the start of the file, `chunk` bytes per call (the buffer holds a chunk).
void write_all(int fd, const char* buf, std::uint64_t size, std::uint64_t chunk, const std::filesystem::path& p) {
  for (std::uint64_t done = 0; done < size;) {
    std::uint64_t n = std::min(chunk, size - done);
    ssize_t w = ::pwrite(fd, buf, n, static_cast<off_t>(done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) io_error(p, "write failed");
    done += static_cast<std::uint64_t>(w);
  }
}

void read_all(int fd, char* buf, std::uint64_t size, std::uint64_t chunk, const std::filesystem::path& p) {
  for (std::uint64_t done = 0; done < size;) {
    ssize_t r = ::pread(fd, buf, std::min(chunk, size - done), static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) io_error(p, "read failed");
    if (r == 0) break;
    done += static_cast<std::uint64_t>(r);
  }
}

// Data on the device, no cached copy left: the next read or buffered write starts from the device.
void drop_cached_pages(const std::filesystem::path& p) {
  Fd f(::open(p.c_str(), O_RDONLY));
  if (f.fd < 0) io_error(p, "cannot open");
  ::fdatasync(f.fd);
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
}

}  // namespace

std::uint64_t DiskProbeOptions::scratch_file_bytes() const {
  std::uint64_t largest = file_size_bytes;
  for (auto b : sweep_buffers_bytes) largest = std::max({largest, b, sweep_file_size_bytes});
  return largest;
}

std::string DiskProbeOptions::validate() const {
  if (buffer_bytes < kAlign || buffer_bytes % kAlign != 0) {
    return "--disk-buffer " + std::to_string(buffer_bytes) + ": expected a multiple of 4096 bytes";
  }
  if (file_size_bytes < buffer_bytes || file_size_bytes % buffer_bytes != 0) {
    return "--disk-size " + std::to_string(file_size_bytes) + ": expected a positive multiple of the buffer size (" +
           std::to_string(buffer_bytes) + ")";
  }
  if (file_size_bytes > max_file_size_bytes) {
    return "--disk-size " + std::to_string(file_size_bytes) + ": exceeds the limit of " +
           std::to_string(max_file_size_bytes) + " bytes";
  }
  for (auto b : sweep_buffers_bytes) {
    if (b < kAlign || b % kAlign != 0 || b > max_file_size_bytes) {
      return "disk buffer sweep: " + std::to_string(b) + ": expected a multiple of 4096 bytes within the size limit";
    }
  }
  if (sweep_file_size_bytes % kAlign != 0) {
    return "disk sweep file size " + std::to_string(sweep_file_size_bytes) + ": expected a multiple of 4096 bytes";
  }
  if (scratch_file_bytes() > max_file_size_bytes) {
    return "disk buffer sweep: its file of " + std::to_string(scratch_file_bytes()) + " bytes exceeds the limit of " +
           std::to_string(max_file_size_bytes) + " bytes";
  }
  if (!(sweep_time_cap_s >= 0)) return "disk sweep time cap must be non-negative";
  if (auto e = repeat.validate(); !e.empty()) return "disk probe: " + e;
  return {};
}

namespace {

// The scratch file fits in the directory's free space, at most a quarter of it.
void check_free_space(const DiskProbeOptions& o, std::uint64_t file_bytes) {
  struct statvfs fs {};
  if (::statvfs(o.directory.c_str(), &fs) != 0) io_error(o.directory, "cannot stat file system");
  const double free_bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (static_cast<double>(file_bytes) > o.max_fraction_of_free_space * free_bytes) {
    throw EnvironmentError(o.directory.string() + ": only " +
                           std::to_string(static_cast<std::uint64_t>(free_bytes) >> 20) +
                           " MiB free; the disk probe uses at most a quarter of it (choose a smaller --disk-size)");
  }
}

using AlignedBuffer = std::unique_ptr<char, decltype(&std::free)>;

// An O_DIRECT-aligned buffer of incompressible content, in case the device or file system compresses.
AlignedBuffer incompressible_buffer(std::uint64_t bytes) {
  void* raw = nullptr;
  if (::posix_memalign(&raw, kAlign, bytes) != 0) throw EnvironmentError("cannot allocate disk buffer");
  AlignedBuffer buffer(static_cast<char*>(raw), &std::free);
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (std::uint64_t i = 0; i < bytes; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(buffer.get() + i, &x, 8);
  }
  return buffer;
}

// The scratch file, allocated before any timing (timed writes overwrite blocks that exist and hold
// data, as a long-lived file's would), and whether the file system takes O_DIRECT; notes into `m`.
void allocate_scratch(const std::filesystem::path& path, std::uint64_t file_bytes, DiskMeasurement& m) {
  {
    Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (f.fd < 0) io_error(path, "cannot create");
    int rc = ::posix_fallocate(f.fd, 0, static_cast<off_t>(file_bytes));
    if (rc == ENOSPC) {
      errno = rc;
      io_error(path, "cannot allocate the scratch file");
    }
    if (rc != 0)
      m.notes.push_back(std::string("fallocate refused (") + std::strerror(rc) +
                        "): blocks allocated by the first write");
  }
  Fd probe(::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC));
  m.direct_io = probe.fd >= 0;
  if (!m.direct_io) {
    m.notes.push_back(std::string("O_DIRECT refused by the file system (") + std::strerror(errno) +
                      "): unbuffered write measured as write + fdatasync; read measured after evicting the "
                      "file from the page cache (posix_fadvise DONTNEED)");
  }
}

// The timed passes over the scratch file, each returning bytes per second.
struct DiskPasses {
  const std::filesystem::path& path;
  char* buffer;
  int direct;  // O_DIRECT when the file system takes it, else 0
  const DiskProbeOptions& o;

  // Unbuffered write and read of the first `bytes` of the file in calls of `chunk` bytes.
  double write_direct(std::uint64_t bytes, std::uint64_t chunk) const {
    Fd f(::open(path.c_str(), O_WRONLY | O_CLOEXEC | direct));
    if (f.fd < 0) io_error(path, "cannot open for writing");
    const double t0 = monotonic_seconds();
    write_all(f.fd, buffer, bytes, chunk, path);
    if (::fdatasync(f.fd) != 0) io_error(path, "fdatasync failed");
    return static_cast<double>(bytes) / (monotonic_seconds() - t0);
  }
  double read_direct(std::uint64_t bytes, std::uint64_t chunk) const {
    drop_cached_pages(path);
    Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | direct));
    if (f.fd < 0) io_error(path, "cannot open for reading");
    const double t0 = monotonic_seconds();
    read_all(f.fd, buffer, bytes, chunk, path);
    return static_cast<double>(bytes) / (monotonic_seconds() - t0);
  }
  // Buffered write: the data must reach the device inside the timed region (fdatasync). The file's
  // pages are evicted first, so that every sample starts from the same page-cache state.
  double write_buffered() const {
    drop_cached_pages(path);
    Fd f(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (f.fd < 0) io_error(path, "cannot open for writing");
    const double t0 = monotonic_seconds();
    write_all(f.fd, buffer, o.file_size_bytes, o.buffer_bytes, path);
    if (::fdatasync(f.fd) != 0) io_error(path, "fdatasync failed");
    return static_cast<double>(o.file_size_bytes) / (monotonic_seconds() - t0);
  }
};

}  // namespace

DiskMeasurement probe_disk(const DiskProbeOptions& o) {
  if (auto e = o.validate(); !e.empty()) throw InputError(e);
  std::error_code ec;
  if (!std::filesystem::is_directory(o.directory, ec)) {
    throw InputError("--dir " + o.directory.string() + ": expected an existing directory");
  }
  // A probe killed outright earlier left its scratch file here: it goes before the free space counts.
  const std::vector<std::string> reclaimed = reclaim_stale_leftovers(o.directory);
  const std::uint64_t file_bytes = o.scratch_file_bytes();
  check_free_space(o, file_bytes);

  DiskMeasurement m;
  m.notes = reclaimed;
  m.directory = std::filesystem::absolute(o.directory).string();
  RepeatOptions sweep_repeat = o.repeat;
  if (o.sweep_time_cap_s > 0) sweep_repeat.time_cap_s = std::min(o.sweep_time_cap_s, o.repeat.time_cap_s);
  m.settings = {{"file_size_bytes", o.file_size_bytes},
                {"buffer_bytes", o.buffer_bytes},
                {"scratch_file_bytes", file_bytes},
                {"sampling", "the three headline figures in interleaved rounds, one pass over the file per sample"},
                {"min_samples", o.repeat.min_samples},
                {"target_relative_half_width", o.repeat.target_relative_half_width},
                {"time_cap_s", o.repeat.time_cap_s},
                {"sweep_time_cap_s", sweep_repeat.time_cap_s}};

  ScratchFile scratch(o.directory / (std::string(kDiskScratchPrefix) + std::to_string(::getpid())));
  std::uint64_t buffer_capacity = o.buffer_bytes;
  for (auto b : o.sweep_buffers_bytes) buffer_capacity = std::max(buffer_capacity, b);
  const AlignedBuffer buffer = incompressible_buffer(buffer_capacity);
  allocate_scratch(scratch.path(), file_bytes, m);
  const DiskPasses pass{scratch.path(), buffer.get(), m.direct_io ? O_DIRECT : 0, o};
  throw_if_interrupted();
  pass.write_direct(file_bytes, buffer_capacity);  // written once before any timing

  auto headline = repeat_interleaved(o.repeat, {[&] { return pass.write_buffered(); },
                                                [&] { return pass.write_direct(o.file_size_bytes, o.buffer_bytes); },
                                                [&] { return pass.read_direct(o.file_size_bytes, o.buffer_bytes); }});
  m.write_buffered_bytes_per_s = headline[0];
  m.write_direct_bytes_per_s = headline[1];
  m.read_direct_bytes_per_s = headline[2];

  for (std::uint64_t b : o.sweep_buffers_bytes) {
    const std::uint64_t bytes = std::max(o.sweep_file_size_bytes, b) / b * b;
    auto point = repeat_interleaved(
        sweep_repeat, {[&] { return pass.write_direct(bytes, b); }, [&] { return pass.read_direct(bytes, b); }});
    m.buffer_sweep.push_back({b, point[0], point[1]});
  }
  m.settings["sweep_buffers_bytes"] = o.sweep_buffers_bytes;
  m.settings["sweep_file_size_bytes"] = o.sweep_file_size_bytes;
  m.settings["max_file_size_bytes"] = o.max_file_size_bytes;
  return m;
}

}  // namespace hetperf::probes
