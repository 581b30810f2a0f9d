// Outputs written atomically: a temporary beside the file, renamed over it; the temporaries a killed
// writer left are removed by the next writer of the same file, and nothing else.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "test_support.hpp"

using namespace hetperf;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The pid of a process that has exited and been reaped: no process has it (until reused).
pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
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
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);
  AtomicFile f(out);
  f.write("new");
  f.commit();
  CHECK(slurp(out) == "new");
}

TEST_CASE("model: AtomicFile removes the temporaries of killed writers of the same file, only those") {
  test::TempDir dir("atomic-orphans");
  const std::string dead = std::to_string(dead_pid()), alive = std::to_string(::getppid());
  dir.write(".out.json.tmp." + dead + ".Ab3xYz", "half");          // a killed writer's: removed
  dir.write(".out.json.tmp." + alive + ".Ab3xYz", "in progress");  // a live writer's: kept
  dir.write(".other.json.tmp." + dead + ".Ab3xYz", "half");        // another file's: kept
  dir.write(".out.json.tmp.Ab3xYz", "old naming");                 // not ours to judge: kept
  dir.write("out.json", "previous");
  AtomicFile f(dir.path() / "out.json");
  f.write("new");
  f.commit();
  CHECK_FALSE(std::filesystem::exists(dir.path() / (".out.json.tmp." + dead + ".Ab3xYz")));
  CHECK(std::filesystem::exists(dir.path() / (".out.json.tmp." + alive + ".Ab3xYz")));
  CHECK(std::filesystem::exists(dir.path() / (".other.json.tmp." + dead + ".Ab3xYz")));
  CHECK(std::filesystem::exists(dir.path() / ".out.json.tmp.Ab3xYz"));
  CHECK(slurp(dir.path() / "out.json") == "new");
}
