// Reading input files with precise errors, and writing outputs atomically (temporary file, then rename),
// so a crash or an error never leaves a partial output or destroys what the user had.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hetperf {

// Reads a whole file; InputError "<path>: cannot read: <reason>" on failure.
std::string read_text_file(const std::filesystem::path& path);

// Parses JSON text that came from `file` (named in messages only). Invalid JSON gives InputError
// "<file>:<line>:<column>: invalid JSON: <reason>"; so do numbers beyond a double and nesting deeper
// than any hetperf file needs. Every reader's bytes go through here (read_json_file, the fuzzers).
nlohmann::json parse_json_text(std::string_view text, const std::string& file);

// Reads and parses JSON (read_text_file, then parse_json_text).
nlohmann::json read_json_file(const std::filesystem::path& path);

// An output written piece by piece (rows streamed as a simulation produces them) and still atomic: into
// a temporary file beside `path`, renamed over it by commit(); without commit (an error, an exception)
// the temporary file is removed and `path` is left as it was.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(std::string_view content);
  void commit();

 private:
  std::filesystem::path path_;
  std::string temporary_;
  int fd_ = -1;
};

// Writes `content` to `path` atomically: a temporary file in the same directory, fsync, rename.
// Parent directories are created. Throws EnvironmentError when the file system refuses.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

// JSON with two-space indentation and a final newline, written atomically.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace hetperf
