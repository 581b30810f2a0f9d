// Input files with line/column errors; outputs written atomically through a temporary file and rename.
#include "hetperf/model/file_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "hetperf/model/error.hpp"

namespace hetperf {

namespace {

// Larger inputs are refused before they are read: a JSON document takes several times its size in
// memory once parsed, and no hetperf input needs this much (a workload generates its processes).
constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{512} << 20;

// 1-based line and column of byte `offset` of `text`.
std::string position(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 2: " prefix.
std::string reason_of(const std::string& what) {
  auto colon = what.find(": ", what.find("parse error"));
  if (what.find("parse error") != std::string::npos && colon != std::string::npos) return what.substr(colon + 2);
  auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

// Deeper nesting is refused: copying or writing such a value recurses once per level, and no hetperf
// file (free-form "settings" and "fits" included) comes near it.
constexpr std::size_t kMaxJsonDepth = 512;

// The offset of the first '[' or '{' that opens level kMaxJsonDepth + 1 of valid JSON `text`, if any.
std::optional<std::size_t> too_deep(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path.string() + ": cannot read: it is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxInputBytes) {
    throw InputError(path.string() + ": " + std::to_string(size) + " bytes: larger than any hetperf input may be (" +
                     std::to_string(kMaxInputBytes >> 20) + " MiB); is it the right file?");
  }
  std::string text;
  if (!ec) text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes) {  // a pipe or a file still growing
      throw InputError(path.string() + ": more than " + std::to_string(kMaxInputBytes >> 20) +
                       " MiB: larger than any hetperf input may be");
    }
  }
  if (in.bad()) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
  return text;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Byte offset -> line and column, so an editor can jump to the problem.
    throw InputError(file + ":" + position(text, e.byte == 0 ? 0 : e.byte - 1) + ": invalid JSON: " +
                     reason_of(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double ("number overflow parsing '1e400'"): point at it.
    std::string what = e.what(), where;
    auto open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open) {
      auto at = text.find(what.substr(open + 1, close - open - 1));
      if (at != std::string::npos) where = ":" + position(text, at);
    }
    throw InputError(file + where + ": invalid JSON: " + reason_of(what) +
                     " (expected a number within ±1.8e308, the range of a double)");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file + ": invalid JSON: " + reason_of(e.what()));
  }
  if (auto deep = too_deep(text)) {
    throw InputError(file + ":" + position(text, *deep) + ": JSON nested more than " + std::to_string(kMaxJsonDepth) +
                     " levels deep (expected a hetperf file, whose objects and arrays nest a few levels)");
  }
  return j;
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json_text(read_text_file(path), path.string());
}

namespace {

// A writer killed outright (SIGKILL, power loss) cannot remove its temporary file. Temporaries are
// named ".<name>.tmp.<pid>.XXXXXX"; the next writer of the same file removes those whose process is
// gone. Nothing else is touched: only this file's temporaries, only of dead writers.
void remove_orphaned_temporaries(const std::filesystem::path& parent, const std::string& name) {
  const std::string prefix = "." + name + ".tmp.";
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(parent, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = file.substr(prefix.size());  // "<pid>.XXXXXX"
    const std::size_t dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || rest.size() - dot - 1 != 6 ||
        rest.find_first_not_of("0123456789") != dot) {
      continue;
    }
    long pid = 0;
    try {
      pid = std::stol(rest.substr(0, dot));
    } catch (const std::exception&) {
      continue;
    }
    if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      std::filesystem::remove(it->path(), ignored);
    }
  }
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  std::filesystem::path parent = path_.parent_path().empty() ? std::filesystem::path(".") : path_.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw EnvironmentError(parent.string() + ": cannot create directory: " + ec.message());
  remove_orphaned_temporaries(parent, path_.filename().string());
  temporary_ = (parent / ("." + path_.filename().string() + ".tmp." + std::to_string(::getpid()) + ".XXXXXX")).string();
  fd_ = ::mkstemp(temporary_.data());
  if (fd_ < 0) throw EnvironmentError(path_.string() + ": cannot create temporary file: " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temporary_.c_str());
  }
}

void AtomicFile::write(std::string_view content) {
  HETPERF_CHECK(fd_ >= 0, "writing to a committed file");
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t w = ::write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw EnvironmentError(path_.string() + ": cannot write: " + std::strerror(errno));
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

void AtomicFile::commit() {
  // Output files are ordinary user files: 0644 minus the umask, not mkstemp's 0600.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  const int fd = std::exchange(fd_, -1);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(temporary_.c_str());
    throw EnvironmentError(path_.string() + ": cannot write: " + std::strerror(err));
  }
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(temporary_.c_str());
    throw EnvironmentError(path_.string() + ": cannot replace: " + std::strerror(err));
  }
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& value) {
  write_file_atomic(path, value.dump(2) + "\n");
}

}  // namespace hetperf
