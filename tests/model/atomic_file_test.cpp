// Outputs written atomically and as a set: temporaries beside their targets, claimed with flock and
// renamed only once every output of the set is complete; targets that cannot be replaced are refused.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "test_support.hpp"

using namespace hetperf;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("model: AtomicFile replaces the file only on commit") {
  test::TempDir dir("atomic-commit");
  const auto out = dir.write("out.json", "previous");
  {
    AtomicFile f(out);
    f.write("new");
    CHECK(slurp(out) == "previous");
  }  // no commit: the temporary goes, the file stays
  CHECK(slurp(out) == "previous");
  CHECK(entries(dir.path()) == 1);
  AtomicFile f(out);
  f.write("new");
  f.commit();
  CHECK(slurp(out) == "new");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("model: AtomicFile removes a temporary of the same file only when no writer holds its lock") {
  test::TempDir dir("atomic-orphans");
  dir.write(".out.json.tmp.Ab3xYz", "a killed writer's");              // lock free: removed
  dir.write(".out.json.tmp.12345.Ab3xYz", "an earlier version's");     // lock free: removed
  const auto live = dir.write(".out.json.tmp.Cd4eFg", "in progress");  // locked below: kept
  dir.write(".other.json.tmp.Ab3xYz", "another file's");               // not this file's: kept
  dir.write("out.json", "previous");
  // A lock belongs to an open file: held through this descriptor as another writer (in any PID
  // namespace) would hold it.
  const int fd = ::open(live.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  AtomicFile f(dir.path() / "out.json");
  f.write("new");
  f.commit();
  ::close(fd);
  CHECK_FALSE(fs::exists(dir.path() / ".out.json.tmp.Ab3xYz"));
  CHECK_FALSE(fs::exists(dir.path() / ".out.json.tmp.12345.Ab3xYz"));
  CHECK(slurp(live) == "in progress");
  CHECK(fs::exists(dir.path() / ".other.json.tmp.Ab3xYz"));
  CHECK(slurp(dir.path() / "out.json") == "new");
}

TEST_CASE("model: an output set is renamed only when every file is complete") {
  test::TempDir dir("output-set");
  const auto json = dir.write("p.json", "old json"), csv = dir.write("p.csv", "old csv");
  {
    OutputSet set;
    set.write(json, "new json");
    AtomicFile& rows = set.add(csv);
    rows.write("new csv, half");
    CHECK(slurp(json) == "old json");  // complete, but its partner is not
  }                                    // a failure before commit: both as they were, no temporary left
  CHECK(slurp(json) == "old json");
  CHECK(slurp(csv) == "old csv");
  CHECK(entries(dir.path()) == 2);
  {
    OutputSet set;
    set.write(json, "new json");
    // A later output that cannot be written fails the set before anything is renamed.
    CHECK_THROWS_AS(set.add(dir.path()), InputError);
  }
  CHECK(slurp(json) == "old json");
  CHECK(entries(dir.path()) == 2);
  OutputSet set;
  set.write(json, "new json");
  set.write(csv, "new csv");
  set.commit();
  CHECK(slurp(json) == "new json");
  CHECK(slurp(csv) == "new csv");
  CHECK(entries(dir.path()) == 2);
}

TEST_CASE("model: an output target that is a directory, a FIFO or a device node is refused and left as it was") {
  test::TempDir dir("output-not-regular");
  const fs::path fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const fs::path sub = dir.path() / "sub";
  fs::create_directory(sub);
  for (const auto& [path, kind] : {std::pair{fifo, "a FIFO"}, std::pair{sub, "a directory"},
                                   std::pair{fs::path("/dev/null"), "a character device"}}) {
    const fs::path target = path;  // clang 14 captures no structured binding in a lambda
    const std::string m = test::input_error([&] { AtomicFile f(target); });
    CHECK_THAT(m, Catch::StartsWith(target.string() + ": cannot write: it is " + kind));
  }
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_directory(sub));
  CHECK(fs::is_character_file("/dev/null"));
  CHECK(entries(dir.path()) == 2);
}

TEST_CASE("model: an output named by a symbolic link replaces the file it points to and keeps the link") {
  test::TempDir dir("output-symlink");
  const auto real = dir.write("real.json", "previous");
  const fs::path link = dir.path() / "link.json";
  fs::create_symlink("real.json", link);
  write_file_atomic(link, "new");
  CHECK(fs::is_symlink(link));
  CHECK(slurp(real) == "new");
  const fs::path dangling = dir.path() / "dangling.json";
  fs::create_symlink("missing.json", dangling);
  CHECK_THAT(test::input_error([&] { write_file_atomic(dangling, "x"); }),
             Catch::StartsWith(dangling.string() + ": cannot write: a symbolic link to a file that does not exist"));
  CHECK(fs::is_symlink(dangling));
  CHECK_FALSE(fs::exists(dir.path() / "missing.json"));
}

TEST_CASE("model: the same file named twice in an output set is refused") {
  test::TempDir dir("output-twice");
  const auto real = dir.write("x.json", "previous");
  fs::create_symlink("x.json", dir.path() / "y.json");
  for (const fs::path& again : {dir.path() / "x.json", dir.path() / "." / "x.json", dir.path() / "y.json"}) {
    OutputSet set;
    set.add(real, "--out");
    const std::string m = test::input_error([&] { set.add(again, "--csv"); });
    CHECK_THAT(m, Catch::Contains("named twice as an output (--out " + real.string() + " and --csv)"));
  }
  CHECK(slurp(real) == "previous");
}

TEST_CASE("model: directories created for an output that is never committed are removed again") {
  test::TempDir dir("output-directories");
  {
    AtomicFile f(dir.path() / "a" / "b" / "out.json");
    CHECK(fs::is_directory(dir.path() / "a" / "b"));
  }
  CHECK(entries(dir.path()) == 0);
}

TEST_CASE("model: a JSON output holding a number that is not finite is an error naming its path") {
  nlohmann::json j = {{"computers", {{{"cpu_s", 1.5}}, {{"cpu_s", std::numeric_limits<double>::infinity()}}}}};
  CHECK_THAT(test::input_error([&] { json_output_text(j, "p.json"); }),
             Catch::StartsWith("p.json: $.computers[1].cpu_s: the result is infinite, expected a finite number"));
  j["computers"][1]["cpu_s"] = std::nan("");
  CHECK_THAT(test::input_error([&] { json_output_text(j, "p.json"); }), Catch::Contains("not a number"));
  j["computers"][1]["cpu_s"] = 2.0;
  CHECK(json_output_text(j, "p.json") == j.dump(2) + "\n");
}

namespace {

// The journal a writer puts beside each target of a set before its renames: pairs of absolute paths.
void journal(const test::TempDir& dir, const std::string& beside,
             const std::vector<std::pair<std::string, std::string>>& renames) {
  std::string text;
  for (const auto& [from, to] : renames) {
    text += (dir.path() / from).string() + '\0' + (dir.path() / to).string() + '\0';
  }
  std::ofstream(dir.path() / ("." + beside + ".commit"), std::ios::binary) << text;
}

}  // namespace

TEST_CASE(
    "model: a set whose writer was killed between two renames is completed by the next writer of any of its targets") {
  test::TempDir dir("output-roll-forward");
  // The writer renamed p.json, then died: p.csv is old, its complete temporary still there.
  dir.write("p.json", "new json");
  dir.write("p.csv", "old csv");
  dir.write(".p.csv.tmp.Ab3xYz", "new csv");
  const std::vector<std::pair<std::string, std::string>> set = {{".p.json.tmp.Zz9yYy", "p.json"},
                                                                {".p.csv.tmp.Ab3xYz", "p.csv"}};
  journal(dir, "p.json", set);
  journal(dir, "p.csv", set);
  {
    AtomicFile next(dir.path() / "p.json");  // claims one target of the set, and fails before committing
  }
  CHECK(slurp(dir.path() / "p.csv") == "new csv");
  CHECK(slurp(dir.path() / "p.json") == "new json");
  CHECK(entries(dir.path()) == 2);  // journals and temporaries gone
}

TEST_CASE("model: journals found incomplete are removed and the set stays as it was") {
  test::TempDir dir("output-incomplete-journal");
  // The writer died while putting its journals in place, before any rename: the set is old.
  dir.write("p.json", "old json");
  dir.write("p.csv", "old csv");
  dir.write(".p.json.tmp.Zz9yYy", "new json");
  dir.write(".p.csv.tmp.Ab3xYz", "new csv");
  journal(dir, "p.json", {{".p.json.tmp.Zz9yYy", "p.json"}, {".p.csv.tmp.Ab3xYz", "p.csv"}});
  { AtomicFile next(dir.path() / "p.json"); }
  CHECK(slurp(dir.path() / "p.json") == "old json");
  CHECK(slurp(dir.path() / "p.csv") == "old csv");
  CHECK_FALSE(fs::exists(dir.path() / ".p.json.commit"));
  CHECK_FALSE(fs::exists(dir.path() / ".p.json.tmp.Zz9yYy"));  // p.json's orphan, removed by its writer
}

TEST_CASE("model: a committed output set leaves no journal or temporary behind") {
  test::TempDir dir("output-set-clean");
  OutputSet set;
  set.write(dir.path() / "a.json", "a");
  set.write(dir.path() / "sub" / "b.csv", "b");
  set.commit();
  CHECK(entries(dir.path()) == 2);
  CHECK(entries(dir.path() / "sub") == 1);
  CHECK(slurp(dir.path() / "sub" / "b.csv") == "b");
}

namespace {

// A directory as mkdtemp makes it (this user's, mode 0700), and a lock file as mkstemp makes it (0600).
void private_dir(const fs::path& p) {
  fs::create_directories(p);
  fs::permissions(p, fs::perms::owner_all, fs::perm_options::replace);
}
fs::path private_lock(const fs::path& dir) {
  const fs::path lock = dir.string() + std::string(ScratchDir::kLockSuffix);
  std::ofstream(lock) << "";
  fs::permissions(lock, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  return lock;
}

}  // namespace

TEST_CASE("model: a scratch directory left by a killed process is removed by the next one, a live one kept") {
  test::TempDir dir("scratch-reclaim");
  // A killed maker's directory: its lock file beside it, nobody holding it.
  const fs::path dead = dir.path() / "hetperf-plots-Ab3xYz";
  private_dir(dead);
  const fs::path dead_lock = private_lock(dead);
  std::ofstream(dead / "plot.png") << "half a picture";
  // A maker killed after its lock file and before its directory: the lock alone.
  const fs::path unborn_lock = private_lock(dir.path() / "hetperf-plots-Qr7sTu");
  // One that others may enter (0755) is not removed, lock file or not: what is in it may not be what
  // its maker wrote. Its lock goes.
  const fs::path open_dir = dir.path() / "hetperf-plots-Gh5iJk";
  fs::create_directories(open_dir);
  fs::permissions(open_dir,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  fs::perm_options::replace);
  const fs::path open_lock = private_lock(open_dir);
  // A live maker's: its lock held, as another process (in any PID namespace) holds it.
  const fs::path live = dir.path() / "hetperf-plots-Cd4eFg";
  private_dir(live);
  const fs::path live_lock = private_lock(live);
  const int fd = ::open(live_lock.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  // Not hetperf's: no lock file beside it; and a lock file others may write is not a candidate.
  const fs::path other = dir.path() / "hetperf-someone-else";
  private_dir(other);
  const fs::path shared = dir.path() / "hetperf-plots-Vw8xYz";
  private_dir(shared);
  const fs::path shared_lock = private_lock(shared);
  fs::permissions(shared_lock, fs::perms::others_write, fs::perm_options::add);

  CHECK(reclaim_dead_scratch_dirs(dir.path()) == 3);
  CHECK_FALSE(fs::exists(dead));
  CHECK_FALSE(fs::exists(dead_lock));
  CHECK_FALSE(fs::exists(unborn_lock));
  CHECK(fs::exists(open_dir));
  CHECK_FALSE(fs::exists(open_lock));
  CHECK(fs::exists(live));
  CHECK(fs::exists(live_lock));
  CHECK(fs::exists(other));
  CHECK(fs::exists(shared));
  CHECK(fs::exists(shared_lock));
  ::close(fd);  // its maker is gone now
  CHECK(reclaim_dead_scratch_dirs(dir.path()) == 1);
  CHECK_FALSE(fs::exists(live));
  CHECK_FALSE(fs::exists(live_lock));
}

namespace {

// Sets or clears the immutable attribute of `file` (chattr +i); false where the file system has none.
bool set_immutable(const fs::path& file, bool on) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  int flags = 0;
  bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
  ok = ok && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

TEST_CASE("model: a dead scratch directory that cannot be removed whole keeps its lock file for the next reclaim") {
  test::TempDir dir("scratch-partial");
  const fs::path dead = dir.path() / "hetperf-plots-Lm6nOp";
  private_dir(dead);
  const fs::path lock = private_lock(dead);
  for (const char* name : {"a.png", "b.png", "z.png"}) std::ofstream(dead / name) << "picture";
  // A file that cannot be unlinked: as one a dead maker's child writes while the directory is removed.
  const fs::path stuck = dead / "b.png";
  if (!set_immutable(stuck, true)) {
    WARN("skipped: cannot set the immutable attribute here (needs CAP_LINUX_IMMUTABLE and a file system with it)");
    return;
  }
  const int first = reclaim_dead_scratch_dirs(dir.path());
  set_immutable(stuck, false);
  CHECK(first == 0);
  CHECK(fs::exists(lock));
  CHECK(reclaim_dead_scratch_dirs(dir.path()) == 1);
  CHECK_FALSE(fs::exists(dead));
  CHECK_FALSE(fs::exists(lock));
}

TEST_CASE("model: a scratch directory holds its lock while it lives, so that another's reclaim keeps it") {
  test::TempDir dir("scratch-live");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  {
    ScratchDir a("hetperf-test");
    CHECK(fs::is_directory(a.path()));
    CHECK(a.lock_path() == a.path().string() + std::string(ScratchDir::kLockSuffix));
    CHECK(fs::exists(a.lock_path()));
    CHECK(a.path().parent_path() == dir.path());
    ScratchDir b("hetperf-test");  // its reclaim sees a's directory, locked
    CHECK(fs::exists(a.path()));
    CHECK(reclaim_dead_scratch_dirs(dir.path()) == 0);
  }
  CHECK(entries(dir.path()) == 0);
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

TEST_CASE("model: scratch directories of makers killed at any point are all removed by the next maker") {
  // A child makes and removes scratch directories without end; it is killed after a random time, at
  // whatever point of a maker, a reclaim or a destructor it is. 300 kills; then one more maker comes and
  // goes, and nothing may be left.
  test::TempDir dir("scratch-kills");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  std::mt19937 draw(20261128);
  std::uniform_int_distribution<int> micros(0, 400);
  for (int kill = 0; kill < 300; ++kill) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      try {
        for (;;) ScratchDir scratch("hetperf-kill");
      } catch (...) {
        ::_exit(1);
      }
    }
    ::usleep(static_cast<useconds_t>(micros(draw)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status));  // it never stopped on an error of its own
  }
  { ScratchDir last("hetperf-kill"); }
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.path())) left.push_back(entry.path().filename().string());
  CHECK(left == std::vector<std::string>{});
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}
