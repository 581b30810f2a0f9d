// Input files with line/column errors; outputs written atomically through a temporary file and rename.
#include "hetperf/model/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hetperf/model/error.hpp"

namespace hetperf {

std::string read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path.string() + ": cannot read: it is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
  return ss.str();
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::string text = read_text_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Byte offset -> line and column, so an editor can jump to the problem.
    std::size_t offset = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1, column 2: ".
    auto colon = what.find(": ", what.find("parse error"));
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    throw InputError(path.string() + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": invalid JSON: " + reason);
  }
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::path parent = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw EnvironmentError(parent.string() + ": cannot create directory: " + ec.message());
  std::string tmpl = (parent / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw EnvironmentError(path.string() + ": cannot create temporary file: " + std::strerror(errno));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw EnvironmentError(path.string() + ": cannot write: " + std::strerror(err));
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  // Output files are ordinary user files: 0644 minus the umask, not mkstemp's 0600.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw EnvironmentError(path.string() + ": cannot write: " + std::strerror(err));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw EnvironmentError(path.string() + ": cannot replace: " + std::strerror(err));
  }
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& value) {
  write_file_atomic(path, value.dump(2) + "\n");
}

}  // namespace hetperf
