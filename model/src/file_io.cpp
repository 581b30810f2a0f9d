// Input files with line/column errors; outputs written atomically through a temporary file and rename.
#include "hetperf/model/file_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
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
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
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

namespace {

// What a non-regular file is, for messages.
const char* file_kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

// Closes a descriptor on every path out.
struct Descriptor {
  int fd;
  explicit Descriptor(int fd) : fd(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Where a duplicate key was found, as the JSON path of the object holding it.
class DuplicateKeys {
 public:
  bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
        frames_.push_back({true, {}, {}, 0});
        break;
      case E::array_start:
        frames_.push_back({false, {}, {}, 0});
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second && !duplicate_) duplicate_ = path() + "." + cut(f.key) + ": duplicate key";
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        element_done();
        break;
      case E::value:
        element_done();
        break;
    }
    return true;
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };
  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  // The path of the innermost object (the one holding the key just read).
  std::string path() const {
    std::string p = "$";
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      p += frames_[i].object ? "." + cut(frames_[i].key) : "[" + std::to_string(frames_[i].index) + "]";
    }
    return p;
  }
  static std::string cut(const std::string& key) { return key.size() > 80 ? key.substr(0, 77) + "..." : key; }

  std::vector<Frame> frames_;
  std::optional<std::string> duplicate_;
};

}  // namespace

std::string read_text_file(const std::filesystem::path& path) {
  // Checked on the open file, before a byte is read: a device (/dev/zero), a FIFO or a directory is
  // refused, and so is a file larger than any input may be.
  Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.fd < 0) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    throw InputError(path.string() + ": cannot read: it is " + std::string(file_kind(st.st_mode)) +
                     ", expected a regular file");
  }
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > kMaxInputBytes) {
    throw InputError(path.string() + ": " + std::to_string(size) + " bytes: larger than any hetperf input may be (" +
                     std::to_string(kMaxInputBytes >> 20) + " MiB); is it the right file?");
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path.string() + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxInputBytes) {  // a file still growing
      throw InputError(path.string() + ": more than " + std::to_string(kMaxInputBytes >> 20) +
                       " MiB: larger than any hetperf input may be");
    }
  }
  return text;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& file) {
  // JSON text holds no NUL byte; one means a binary or damaged file, whose rest a reader would ignore.
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError(file + ":" + position(text, nul) +
                     ": a NUL byte (expected JSON text; is this a binary or "
                     "damaged file?)");
  }
  nlohmann::json j;
  DuplicateKeys keys;
  try {
    j = nlohmann::json::parse(text, std::ref(keys));
  } catch (const nlohmann::json::parse_error& e) {
    // Byte offset -> line and column, so an editor can jump to the problem.
    throw InputError(file + ":" + position(text, e.byte == 0 ? 0 : e.byte - 1) +
                     ": invalid JSON: " + reason_of(e.what()));
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
  // The last of two equal keys would win silently: whichever the user meant, one is lost.
  if (keys.duplicate()) {
    throw InputError(file + ": " + *keys.duplicate() + " (expected each key once in an object)");
  }
  return j;
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json_text(read_text_file(path), path.string());
}

namespace {

namespace fs = std::filesystem;

// Temporaries are ".<name>.tmp.XXXXXX" (mkstemp), and ".<name>.tmp.<pid>.XXXXXX" from earlier versions;
// a journal's own temporary is ".<name>.commit.XXXXXX".
std::string temporary_prefix(const std::string& name) { return "." + name + ".tmp."; }
std::string journal_prefix(const std::string& name) { return "." + name + ".commit."; }

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Removes `path` if it is a temporary no writer holds: its lock can be taken, and the name still
// refers to the file that was locked (not one a writer created there since).
void remove_if_unclaimed(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;  // gone, or not ours to open
  struct stat locked {
  }, named{};
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &locked) == 0 && S_ISREG(locked.st_mode) &&
      ::lstat(path.c_str(), &named) == 0 && same_file(locked, named)) {
    ::unlink(path.c_str());
  }
  ::close(fd);  // releases the lock
}

// A writer killed outright (SIGKILL, power loss) cannot remove its temporary file; the next writer of
// the same file removes the temporaries whose writer is gone, judged by their lock, not by a PID that
// may belong to another namespace. Nothing else is touched: only this file's temporaries.
void remove_orphaned_temporaries(const fs::path& parent, const std::string& name) {
  const std::string prefixes[] = {temporary_prefix(name), journal_prefix(name)};
  std::error_code ec;
  for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string file = it->path().filename().string();
    for (const std::string& prefix : prefixes) {
      if (file.size() >= prefix.size() + 6 && file.compare(0, prefix.size(), prefix) == 0)
        remove_if_unclaimed(it->path());
    }
  }
}

// The file an output replaces: `path` itself, or the file a symbolic link at `path` leads to.
// InputError when it cannot be an output.
fs::path output_target(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return path;  // absent (or unreachable: the write will say why)
  fs::path target = path;
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    target = fs::canonical(path, ec);
    if (ec || ::stat(target.c_str(), &st) != 0) {
      throw InputError(path.string() +
                       ": cannot write: a symbolic link to a file that does not exist (expected "
                       "a regular file, or a link to one, to replace)");
    }
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw InputError(path.string() + ": cannot write: it is " + std::string(kind) +
                     ", expected a regular file to replace or a new file's name");
  }
  return target;
}

// The directories between `dir` and its first existing ancestor, deepest first.
std::vector<fs::path> missing_directories(fs::path dir) {
  std::vector<fs::path> missing;
  std::error_code ec;
  while (!dir.empty() && !fs::exists(fs::symlink_status(dir, ec))) {
    missing.push_back(dir);
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return missing;
}

// mkstemp and flock are two steps: a writer scanning for orphans may take the lock in between and
// remove the file. The claim holds once the name still refers to the locked file; else it is retried.
// Close-on-exec: a program the writer starts (gnuplot drawing a picture of the set) would otherwise
// hold the descriptor, and with it the lock, past the writer's death, and the next writer would take
// the dead writer's temporaries for a live one's and leave them.
int claim_temporary(std::string& name, const std::string& pattern) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = pattern;
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat locked {
    }, named{};
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &locked) == 0 && ::lstat(name.c_str(), &named) == 0 &&
        same_file(locked, named)) {
      return fd;
    }
    ::close(fd);
  }
  errno = EAGAIN;
  return -1;
}

// After the renames: the directory entries themselves reach the disk.
void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// --- the journal of an output set being renamed ---
// The renames of a set are separate system calls, and a kill can fall between two of them. So before
// the first, a journal ".<name>.commit" is put beside each target, listing the set: NUL-separated
// pairs of absolute paths, temporary then target. Its writer holds its lock until the journals are
// removed after the last rename. A writer killed in between leaves them unlocked, and the next writer
// of any target of the set completes the renames first (every temporary was complete before the first
// journal was written), so the set ends new as a whole. Journals found incomplete (the writer died
// while putting them in place, before any rename) are only removed: the set stays old.
fs::path journal_of(const fs::path& target) {
  return target.parent_path() / ("." + target.filename().string() + ".commit");
}

std::string read_descriptor(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

void roll_forward(const fs::path& target) {
  const fs::path journal = journal_of(target);
  Descriptor file(::open(journal.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (file.fd < 0) return;
  struct stat locked {
  }, named{};
  // Blocks while a live writer renames its set (a few system calls); then the journal is gone.
  if (::flock(file.fd, LOCK_EX) != 0 || ::fstat(file.fd, &locked) != 0 || ::lstat(journal.c_str(), &named) != 0 ||
      !same_file(locked, named)) {
    return;
  }
  std::vector<std::string> paths;
  const std::string text = read_descriptor(file.fd);
  for (std::size_t from = 0, nul; (nul = text.find('\0', from)) != std::string::npos; from = nul + 1) {
    paths.push_back(text.substr(from, nul - from));
  }
  bool complete = paths.size() % 2 == 0;
  for (std::size_t i = 1; i < paths.size(); i += 2)
    complete = complete && ::access(journal_of(paths[i]).c_str(), F_OK) == 0;
  for (std::size_t i = 0; complete && i + 1 < paths.size(); i += 2) ::rename(paths[i].c_str(), paths[i + 1].c_str());
  for (std::size_t i = 1; i < paths.size(); i += 2) ::unlink(journal_of(paths[i]).c_str());
  ::unlink(journal.c_str());
}

}  // namespace

AtomicFile::AtomicFile(fs::path path) : path_(std::move(path)), target_(output_target(path_)) {
  fs::path parent = target_.parent_path().empty() ? fs::path(".") : target_.parent_path();
  created_directories_ = missing_directories(parent);
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw EnvironmentError(parent.string() + ": cannot create directory: " + ec.message());
  roll_forward(target_);
  remove_orphaned_temporaries(parent, target_.filename().string());
  const int fd =
      claim_temporary(temporary_, (parent / (temporary_prefix(target_.filename().string()) + "XXXXXX")).string());
  if (fd < 0) {
    const int err = errno;
    for (const auto& d : created_directories_) fs::remove(d, ec);
    throw EnvironmentError(path_.string() + ": cannot create temporary file: " + std::strerror(err));
  }
  fd_ = fd;
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::unlink(temporary_.c_str());
  ::close(fd_);
  std::error_code ignored;
  for (const auto& d : created_directories_) fs::remove(d, ignored);  // only if empty
}

void AtomicFile::write(std::string_view content) {
  HETPERF_CHECK(fd_ >= 0 && !finished_, "writing to a finished file");
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

void AtomicFile::finish() {
  HETPERF_CHECK(fd_ >= 0 && !finished_, "finishing a file twice");
  // Output files are ordinary user files: 0666 minus the umask, not mkstemp's 0600.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  if (::fsync(fd_) != 0) throw EnvironmentError(path_.string() + ": cannot write: " + std::strerror(errno));
  finished_ = true;
}

void AtomicFile::publish() {
  HETPERF_CHECK(fd_ >= 0 && finished_, "publishing an unfinished file");
  // The lock is held across the rename, so no other writer takes the complete temporary for an orphan.
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
    throw EnvironmentError(path_.string() + ": cannot replace: " + std::strerror(errno));
  }
  ::close(std::exchange(fd_, -1));
  created_directories_.clear();
}

void AtomicFile::commit() {
  finish();
  publish();
  sync_directory(target_.parent_path());
}

AtomicFile& OutputSet::add(const fs::path& path, const std::string& option) {
  auto file = std::make_unique<AtomicFile>(path);
  std::error_code ec;
  fs::path key = fs::absolute(file->target(), ec);
  if (!ec) key = fs::weakly_canonical(key, ec);
  if (ec) key = file->target().lexically_normal();
  for (const Claimed& c : files_) {
    if (c.key == key) {
      throw InputError(path.string() + ": named twice as an output (" + (c.option.empty() ? "" : c.option + " ") +
                       c.file->path().string() + (option.empty() ? "" : " and " + option) +
                       "), expected a file of its own for each output");
    }
  }
  files_.push_back({std::move(file), std::move(key), option});
  return *files_.back().file;
}

void OutputSet::write(const fs::path& path, std::string_view content, const std::string& option) {
  add(path, option).write(content);
}

void OutputSet::commit() {
  for (Claimed& c : files_) c.file->finish();
  std::set<fs::path> directories;
  for (const Claimed& c : files_) directories.insert(c.file->target().parent_path());
  // One file needs no journal: its rename is atomic.
  std::vector<Journal> journals = files_.size() > 1 ? write_journals() : std::vector<Journal>();
  for (const auto& d : directories) sync_directory(d);
  // A rename over a file frees that file's blocks when nothing else holds it, which takes long for a
  // large one; held open here, the old files are freed after the last rename, not between two.
  std::vector<Descriptor> previous;
  previous.reserve(files_.size());
  for (const Claimed& c : files_)
    previous.emplace_back(::open(c.file->target().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  for (Claimed& c : files_) c.file->publish();
  for (Journal& j : journals) {
    ::unlink(j.path.c_str());
    j.path.clear();
  }
  journals.clear();  // releases their locks
  for (const auto& d : directories) sync_directory(d);
}

std::vector<OutputSet::Journal> OutputSet::write_journals() const {
  std::string text;
  for (const Claimed& c : files_) {
    text += fs::absolute(c.file->temporary()).string() + '\0' + fs::absolute(c.file->target()).string() + '\0';
  }
  std::vector<Journal> journals;
  std::vector<std::string> temporaries;
  for (const Claimed& c : files_) {
    const fs::path target = c.file->target(),
                   parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::string temporary;
    Journal j;
    j.fd = claim_temporary(temporary, (parent / (journal_prefix(target.filename().string()) + "XXXXXX")).string());
    if (j.fd < 0)
      throw EnvironmentError(target.string() + ": cannot create its commit journal: " + std::strerror(errno));
    j.path = temporary;
    journals.push_back(std::move(j));
    temporaries.push_back(temporary);
    const char* p = text.data();
    for (std::size_t left = text.size(); left > 0;) {
      const ssize_t w = ::write(journals.back().fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) throw EnvironmentError(target.string() + ": cannot write its commit journal: " + std::strerror(errno));
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    if (::fsync(journals.back().fd) != 0) {
      throw EnvironmentError(target.string() + ": cannot write its commit journal: " + std::strerror(errno));
    }
  }
  // The commit point: the last journal in place. Before it a recovering writer finds them incomplete.
  for (std::size_t i = 0; i < journals.size(); ++i) {
    const fs::path place = journal_of(files_[i].file->target());
    if (::rename(temporaries[i].c_str(), place.c_str()) != 0) {
      throw EnvironmentError(files_[i].file->path().string() +
                             ": cannot place its commit journal: " + std::strerror(errno));
    }
    journals[i].path = place;
  }
  return journals;
}

OutputSet::Journal::~Journal() {
  if (fd < 0) return;
  // A journal not yet renamed into place, or one an exception left before its set's renames ended.
  if (!path.empty()) ::unlink(path.c_str());
  ::close(fd);
}

namespace {

constexpr std::string_view kLockSuffix = ScratchDir::kLockSuffix;

// True when `path` names a file or directory of this user that no other user may enter or change
// (mode 0700 or 0600, as mkdtemp and mkstemp make them), of the type wanted.
bool private_of_this_user(const fs::path& path, bool directory) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) return false;
  return directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

// True when `fd` and `path` are the same file: no reclaimer removed the name between open and lock.
bool still_named(int fd, const fs::path& path) {
  struct stat held, named;
  return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

int reclaim_dead_scratch_dirs(const fs::path& directory) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= kLockSuffix.size() || !name.ends_with(kLockSuffix)) continue;
    const fs::path lock = it->path();
    if (!private_of_this_user(lock, false)) continue;
    const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    // Held: its maker lives. Taken: its maker is gone (or another reclaimer removed the name meanwhile,
    // which still_named tells), and this process holds it while removing.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(fd, lock)) {
      const fs::path dir = directory / name.substr(0, name.size() - kLockSuffix.size());
      std::error_code gone;
      // Only a private directory of this user: nobody else can have put anything in it. A lock whose
      // directory is someone else's was left by a maker killed before it gave the name up: the lock
      // goes, the directory stays.
      bool cleared = true;
      if (private_of_this_user(dir, true)) {
        fs::remove_all(dir, gone);
        cleared = !gone;
      }
      // A directory not removed whole (a dead maker's child still writing there) keeps its lock file,
      // by which the next reclaimer knows it.
      if (cleared && ::unlink(lock.c_str()) == 0) ++removed;
    }
    ::close(fd);
  }
  return removed;
}

ScratchDir::ScratchDir(const std::string& prefix) {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) throw EnvironmentError("cannot find the temporary directory: " + ec.message());
  // The lock file comes first, the directory after it, and the directory goes before the lock: a
  // directory never exists without its lock file beside it, so whenever its maker is killed, the next
  // reclaimer finds the lock free and removes both.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string lock = (tmp / (prefix + "-XXXXXX")).string() + std::string(kLockSuffix);
    const int fd = ::mkostemps(lock.data(), static_cast<int>(kLockSuffix.size()), O_CLOEXEC);
    if (fd < 0) throw EnvironmentError("cannot create a temporary file " + lock + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX) != 0) {
      const int why = errno;
      ::unlink(lock.c_str());
      ::close(fd);
      throw EnvironmentError("cannot lock the temporary file " + lock + ": " + std::strerror(why));
    }
    // A reclaimer may take the new file's lock before this process does, and remove it: then again.
    if (!still_named(fd, lock)) {
      ::close(fd);
      continue;
    }
    const fs::path dir = lock.substr(0, lock.size() - kLockSuffix.size());
    if (::mkdir(dir.c_str(), 0700) == 0) {
      path_ = dir;
      lock_ = lock;
      lock_fd_ = fd;
      reclaim_dead_scratch_dirs(tmp);
      return;
    }
    const int why = errno;
    ::unlink(lock.c_str());
    ::close(fd);
    if (why != EEXIST) {
      throw EnvironmentError("cannot create a temporary directory " + dir.string() + ": " + std::strerror(why));
    }
  }
  throw EnvironmentError("cannot create a temporary directory under " + tmp.string() +
                         ": 100 names taken or reclaimed under it");
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  // Not removed whole: the lock file stays for the next reclaimer.
  if (!ec) ::unlink(lock_.c_str());
  ::close(lock_fd_);
}

void write_file_atomic(const fs::path& path, const std::string& content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

namespace {

struct NonFinite {
  std::string path;
  double value;
};

// The first number in `value` that is not finite, if any, with its JSON path below `value`. The path
// is built on the way back from that number only: a string per value walked cost a tenth of a large
// prediction's run time.
std::optional<NonFinite> non_finite_at(const nlohmann::json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    return std::isfinite(v) ? std::nullopt : std::optional<NonFinite>(NonFinite{"", v});
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto at = non_finite_at(value[i])) {
        at->path = "[" + std::to_string(i) + "]" + at->path;
        return at;
      }
    }
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (auto at = non_finite_at(it.value())) {
        at->path = "." + it.key() + at->path;
        return at;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string json_output_text(const nlohmann::json& value, const std::string& file) {
  check_finite_output(value, file, "$");
  return value.dump(2) + "\n";
}

void check_finite_output(const nlohmann::json& value, const std::string& file, const std::string& path) {
  if (auto at = non_finite_at(value)) {
    throw InputError(file + ": " + path + at->path + ": the result is " +
                     (std::isnan(at->value) ? "not a number" : "infinite") +
                     ", expected a finite number; nothing was written (an input figure is beyond what the model "
                     "can compute with: check the inputs' extreme values)");
  }
}

void write_json_file(const fs::path& path, const nlohmann::json& value) {
  write_file_atomic(path, json_output_text(value, path.string()));
}

}  // namespace hetperf
