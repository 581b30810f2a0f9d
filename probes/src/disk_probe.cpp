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
};

[[noreturn]] void io_error(const std::filesystem::path& p, const char* what) {
  throw EnvironmentError(p.string() + ": " + what + ": " + std::strerror(errno));
}

void write_all(int fd, const char* buf, std::uint64_t size, std::uint64_t chunk, const std::filesystem::path& p) {
  for (std::uint64_t done = 0; done < size;) {
    std::uint64_t n = std::min(chunk, size - done);
    ssize_t w = ::write(fd, buf, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) io_error(p, "write failed");
    done += static_cast<std::uint64_t>(w);
  }
}

void read_all(int fd, char* buf, std::uint64_t size, std::uint64_t chunk, const std::filesystem::path& p) {
  for (std::uint64_t done = 0; done < size;) {
    ssize_t r = ::read(fd, buf, std::min(chunk, size - done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) io_error(p, "read failed");
    if (r == 0) break;
    done += static_cast<std::uint64_t>(r);
  }
}

}  // namespace

DiskMeasurement probe_disk(const DiskProbeOptions& o) {
  if (o.buffer_bytes < kAlign || o.buffer_bytes % kAlign != 0) {
    throw InputError("--disk-buffer " + std::to_string(o.buffer_bytes) + ": expected a multiple of 4096 bytes");
  }
  if (o.file_size_bytes < o.buffer_bytes || o.file_size_bytes % o.buffer_bytes != 0) {
    throw InputError("--disk-size " + std::to_string(o.file_size_bytes) +
                     ": expected a positive multiple of the buffer size (" + std::to_string(o.buffer_bytes) + ")");
  }
  if (o.file_size_bytes > o.max_file_size_bytes) {
    throw InputError("--disk-size " + std::to_string(o.file_size_bytes) + ": exceeds the limit of " +
                     std::to_string(o.max_file_size_bytes) + " bytes");
  }
  for (auto b : o.sweep_buffers_bytes) {
    if (b < kAlign || b % kAlign != 0 || b > o.max_file_size_bytes) {
      throw InputError("disk buffer sweep: " + std::to_string(b) + ": expected a multiple of 4096 bytes within the size limit");
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(o.directory, ec)) {
    throw InputError("--dir " + o.directory.string() + ": expected an existing directory");
  }
  struct statvfs fs {};
  if (::statvfs(o.directory.c_str(), &fs) != 0) io_error(o.directory, "cannot stat file system");
  double free_bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  std::uint64_t largest = o.file_size_bytes;
  for (auto b : o.sweep_buffers_bytes) largest = std::max({largest, b, o.sweep_file_size_bytes});
  if (static_cast<double>(largest) > o.max_fraction_of_free_space * free_bytes) {
    throw EnvironmentError(o.directory.string() + ": only " + std::to_string(static_cast<std::uint64_t>(free_bytes) >> 20) +
                           " MiB free; the disk probe uses at most a quarter of it (choose a smaller --disk-size)");
  }

  DiskMeasurement m;
  m.directory = std::filesystem::absolute(o.directory).string();
  m.settings = {{"file_size_bytes", o.file_size_bytes},
                {"buffer_bytes", o.buffer_bytes},
                {"min_samples", o.repeat.min_samples},
                {"target_relative_half_width", o.repeat.target_relative_half_width},
                {"time_cap_s", o.repeat.time_cap_s}};

  ScratchFile scratch(o.directory / (".hetperf-disk-probe." + std::to_string(::getpid())));
  const auto& path = scratch.path();
  std::uint64_t buffer_capacity = o.buffer_bytes;
  for (auto b : o.sweep_buffers_bytes) buffer_capacity = std::max(buffer_capacity, b);
  void* raw = nullptr;
  if (::posix_memalign(&raw, kAlign, buffer_capacity) != 0) throw EnvironmentError("cannot allocate disk buffer");
  std::unique_ptr<char, decltype(&std::free)> buffer(static_cast<char*>(raw), &std::free);
  // Incompressible content, in case the device or file system compresses.
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (std::uint64_t i = 0; i < buffer_capacity; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(buffer.get() + i, &x, 8);
  }
  const double size = static_cast<double>(o.file_size_bytes);

  // Buffered write: the data must reach the device inside the timed region (fdatasync).
  m.write_buffered_bytes_per_s = repeat_until_precise(o.repeat, [&] {
    double t0 = monotonic_seconds();
    Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600));
    if (f.fd < 0) io_error(path, "cannot create");
    write_all(f.fd, buffer.get(), o.file_size_bytes, o.buffer_bytes, path);
    if (::fdatasync(f.fd) != 0) io_error(path, "fdatasync failed");
    return size / (monotonic_seconds() - t0);
  });

  // Is O_DIRECT accepted here?
  {
    Fd probe(::open(path.c_str(), O_WRONLY | O_DIRECT));
    m.direct_io = probe.fd >= 0;
    if (!m.direct_io) {
      m.notes.push_back(std::string("O_DIRECT refused by the file system (") + std::strerror(errno) +
                        "): unbuffered write measured as write + fdatasync; read measured after evicting the "
                        "file from the page cache (posix_fadvise DONTNEED)");
    }
  }

  // Unbuffered write and read of `bytes` in calls of `chunk` bytes.
  auto write_direct = [&](std::uint64_t bytes, std::uint64_t chunk) {
    double t0 = monotonic_seconds();
    Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | (m.direct_io ? O_DIRECT : 0), 0600));
    if (f.fd < 0) io_error(path, "cannot open for writing");
    write_all(f.fd, buffer.get(), bytes, chunk, path);
    if (::fdatasync(f.fd) != 0) io_error(path, "fdatasync failed");
    return static_cast<double>(bytes) / (monotonic_seconds() - t0);
  };
  auto read_direct = [&](std::uint64_t bytes, std::uint64_t chunk) {
    {
      // Written data is on the device (fdatasync above); drop any cached copy so reads hit the device.
      Fd f(::open(path.c_str(), O_RDONLY));
      ::fdatasync(f.fd);
      ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    double t0 = monotonic_seconds();
    Fd f(::open(path.c_str(), O_RDONLY | (m.direct_io ? O_DIRECT : 0)));
    if (f.fd < 0) io_error(path, "cannot open for reading");
    read_all(f.fd, buffer.get(), bytes, chunk, path);
    return static_cast<double>(bytes) / (monotonic_seconds() - t0);
  };
  m.write_direct_bytes_per_s = repeat_until_precise(o.repeat, [&] { return write_direct(o.file_size_bytes, o.buffer_bytes); });
  m.read_direct_bytes_per_s = repeat_until_precise(o.repeat, [&] { return read_direct(o.file_size_bytes, o.buffer_bytes); });

  for (std::uint64_t b : o.sweep_buffers_bytes) {
    const std::uint64_t bytes = std::max(o.sweep_file_size_bytes, b) / b * b;
    ::truncate(path.c_str(), 0);
    DiskMeasurement::BufferPoint p;
    p.buffer_bytes = b;
    p.write_bytes_per_s = repeat_until_precise(o.repeat, [&] { return write_direct(bytes, b); });
    p.read_bytes_per_s = repeat_until_precise(o.repeat, [&] { return read_direct(bytes, b); });
    m.buffer_sweep.push_back(p);
  }
  m.settings["sweep_buffers_bytes"] = o.sweep_buffers_bytes;
  m.settings["sweep_file_size_bytes"] = o.sweep_file_size_bytes;
  m.settings["max_file_size_bytes"] = o.max_file_size_bytes;
  return m;
}

}  // namespace hetperf::probes
