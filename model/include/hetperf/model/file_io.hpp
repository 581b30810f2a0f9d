// Reading input files with precise errors, and writing outputs atomically (temporary file, then rename),
// so a crash or an error never leaves a partial output or destroys what the user had.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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
// a temporary file beside its target, renamed over it by commit(); without commit (an error, an
// exception) the temporary file is removed and the target is left as it was.
//
// The target is checked before anything is written: it must be absent or a regular file (a device
// node, a directory or a FIFO is refused with InputError naming it). A symbolic link is written
// through: the file it points to is replaced and the link stays a link (a link to nothing is refused,
// since there is no file to replace and replacing the link would silently unlink it).
//
// The temporary file, ".<name>.tmp.XXXXXX", is claimed with flock(2) for as long as it exists. A writer
// killed outright (SIGKILL, power loss) leaves its temporary behind; the next writer of the same target
// removes those whose lock it can take. A lock belongs to an open file, not to a process id, so a live
// writer in another PID namespace, container or (on a file system that forwards locks) host is never
// disturbed.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(std::string_view content);
  // finish() then publish().
  void commit();
  // The content is complete: permissions of an ordinary user file, flushed to the disk. The temporary
  // stays claimed.
  void finish();
  // Renames the finished temporary over the target and releases it (the directory is not synced).
  void publish();
  // The target as given, and the file that will be replaced (a symbolic link resolved).
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& target() const { return target_; }
  const std::string& temporary() const { return temporary_; }

 private:
  std::filesystem::path path_, target_;
  std::vector<std::filesystem::path> created_directories_;  // removed again (when empty) without commit
  std::string temporary_;
  int fd_ = -1;
  bool finished_ = false;
};

// Every output of one command as a set: each target is claimed (AtomicFile's checks) when added, and
// none is renamed over its target before every one of them is complete, so a failure anywhere (an
// error, an exception, a full disk, a kill before the renames) leaves every previous output as it was.
// The same file named twice (compared after resolving links and "..") is refused with InputError.
// Renames cannot be made one atomic step on POSIX: a journal beside each target (".<name>.commit",
// written before the first rename, removed after the last) lets the next writer of any of them
// complete the renames of a writer killed between two, so the set ends all old or all new.
class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  // Claims `path`; `option` (e.g. "--csv") names where it came from in messages. Returns its file.
  AtomicFile& add(const std::filesystem::path& path, const std::string& option = "");
  // add(), write(content).
  void write(const std::filesystem::path& path, std::string_view content, const std::string& option = "");
  // Every file finished, then every file published, in the order added.
  void commit();

 private:
  struct Claimed {
    std::unique_ptr<AtomicFile> file;
    std::filesystem::path key;  // the canonical target
    std::string option;
  };
  // A commit journal, locked while it is open; removed with the object unless renamed into place.
  struct Journal {
    int fd = -1;
    std::filesystem::path path;
    Journal() = default;
    Journal(Journal&& other) noexcept : fd(other.fd), path(std::move(other.path)) { other.fd = -1; }
    Journal& operator=(Journal&&) = delete;
    ~Journal();
  };
  std::vector<Journal> write_journals() const;
  std::vector<Claimed> files_;
};

// A private directory (0700) under the system temporary directory, removed with its contents with the
// object: where a tool (gnuplot) writes files that become outputs only once read back into an OutputSet.
// Beside the directory NAME is its lock file NAME.hetperf-lock (0600), made before the directory and
// removed after it, on which the object holds a lock (flock) while it lives. A process killed outright
// cannot remove its directory; the next ScratchDir made under the same temporary directory removes every
// directory whose lock file nobody holds (its maker is gone, on this host or another, whatever its PID
// namespace), at whatever point the maker was killed.
class ScratchDir {
 public:
  static constexpr std::string_view kLockSuffix = ".hetperf-lock";
  explicit ScratchDir(const std::string& prefix = "hetperf");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& lock_path() const { return lock_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path lock_;
  int lock_fd_ = -1;
};

// Removes the scratch directories directly under `directory` whose lock nobody holds (ScratchDir), with
// their lock files; returns how many lock files it removed. Only lock files and directories of this user
// that no one else may enter (as mkstemp and mkdtemp make them) are candidates.
int reclaim_dead_scratch_dirs(const std::filesystem::path& directory);

// Writes `content` to `path` atomically: a temporary file in the same directory, fsync, rename.
// Parent directories are created. Throws EnvironmentError when the file system refuses.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

// JSON as every hetperf output writes it: two-space indentation and a final newline. Every number in it
// must be finite (JSON has no inf or nan, and nlohmann would write null): InputError otherwise, naming
// `file` and the JSON path of the first that is not, since only an extreme input leads there.
std::string json_output_text(const nlohmann::json& value, const std::string& file);
// json_output_text's check alone, for a part of a document found at JSON path `path` ("$.processes[3]").
void check_finite_output(const nlohmann::json& value, const std::string& file, const std::string& path);

// json_output_text, written atomically.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace hetperf
