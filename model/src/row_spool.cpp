// Rows spilled to an unlinked file and copied back in order (see row_spool.hpp).
#include "hetperf/model/row_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "hetperf/model/error.hpp"

namespace hetperf {

namespace {

constexpr std::uint32_t kNotAdded = std::numeric_limits<std::uint32_t>::max();
// Bytes gathered before a write to the spool, and read back at a time.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

}  // namespace

RowSpool::RowSpool(const AtomicFile& beside) : name_(beside.path().string()) {
  std::filesystem::path dir = std::filesystem::path(beside.temporary()).parent_path();
  if (dir.empty()) dir = ".";
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
    std::string name = (dir / ("." + beside.target().filename().string() + ".rows.XXXXXX")).string();
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(name.c_str());
  }
  if (fd_ < 0) throw EnvironmentError(name_ + ": cannot create a spool file beside it: " + std::strerror(errno));
  buffer_.reserve(kChunkBytes + 4096);
}

RowSpool::~RowSpool() {
  if (fd_ >= 0) ::close(fd_);
}

void RowSpool::add(std::uint64_t index, std::string_view text) {
  HETPERF_CHECK(text.size() < kNotAdded, "a spooled row of 4 GiB");
  if (index >= lengths_.size()) {
    offsets_.resize(index + 1, 0);
    lengths_.resize(index + 1, kNotAdded);
  }
  HETPERF_CHECK(lengths_[index] == kNotAdded, "row " + std::to_string(index) + " spooled twice");
  offsets_[index] = written_ + buffer_.size();
  lengths_[index] = static_cast<std::uint32_t>(text.size());
  buffer_ += text;
  if (buffer_.size() >= kChunkBytes) flush();
}

void RowSpool::flush() {
  const char* p = buffer_.data();
  std::size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw EnvironmentError(name_ + ": cannot write its spool file: " + std::strerror(errno));
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  written_ += buffer_.size();
  buffer_.clear();
}

void RowSpool::copy_to(AtomicFile& out) {
  flush();
  std::string chunk;
  chunk.reserve(kChunkBytes);
  auto read_at = [&](std::uint64_t offset, std::size_t length) {
    const std::size_t at = chunk.size();
    chunk.resize(at + length);
    std::size_t done = 0;
    while (done < length) {
      const ssize_t r = ::pread(fd_, chunk.data() + at + done, length - done, static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        throw EnvironmentError(name_ + ": cannot read its spool file back: " + std::strerror(r < 0 ? errno : EIO));
      done += static_cast<std::size_t>(r);
    }
  };
  // Consecutive rows that lie one after the other in the spool (rows that finished in order) are read
  // as one run, so a run in order costs a read per chunk, not per row.
  for (std::size_t i = 0; i < lengths_.size();) {
    HETPERF_CHECK(lengths_[i] != kNotAdded, "row " + std::to_string(i) + " never spooled");
    const std::uint64_t from = offsets_[i];
    std::uint64_t to = from + lengths_[i];
    for (++i; i < lengths_.size() && lengths_[i] != kNotAdded && offsets_[i] == to; ++i) to += lengths_[i];
    for (std::uint64_t at = from; at < to;) {
      const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(to - at, kChunkBytes));
      read_at(at, length);
      at += length;
      if (chunk.size() >= kChunkBytes) {
        out.write(chunk);
        chunk.clear();
      }
    }
  }
  out.write(chunk);
}

}  // namespace hetperf
