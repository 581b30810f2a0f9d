// Running another program (process.hpp): its output and status, and that it never outlives a hetperf
// killed outright.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "hetperf/model/error.hpp"
#include "hetperf/model/process.hpp"

using namespace hetperf;

TEST_CASE("model: run_command captures a program's output and exit status, and names one it cannot start") {
  CommandResult r = run_command({"sh", "-c", "echo hello; exit 3"});
  CHECK(r.output == "hello\n");
  CHECK(r.status == 3);
  CHECK_THROWS_AS(run_command({"hetperf-no-such-program"}), EnvironmentError);
}

TEST_CASE("model: a program run_command started is terminated when the hetperf that started it is killed") {
  // Orphans come to this process (a subreaper), which can then wait for the program.
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t hetperf = ::fork();
  REQUIRE(hetperf >= 0);
  if (hetperf == 0) {
    ::close(report[0]);
    // The program reports its process id, then would run for a minute.
    try {
      const std::string fd = std::to_string(report[1]);
      run_command({"sh", "-c", "echo $$ >&" + fd + "; exec sleep 60"}, CommandOptions{{}, false});
    } catch (...) {
    }
    ::_exit(0);
  }
  ::close(report[1]);
  pid_t program = 0;
  char text[32] = {};
  ssize_t n = 0;
  for (std::size_t got = 0; got < sizeof text - 1; got += static_cast<std::size_t>(n)) {
    n = ::read(report[0], text + got, sizeof text - 1 - got);
    if (n <= 0 || std::string(text).find('\n') != std::string::npos) break;
  }
  ::close(report[0]);
  program = static_cast<pid_t>(std::atol(text));
  REQUIRE(program > 0);

  ::kill(hetperf, SIGKILL);
  while (::waitpid(hetperf, nullptr, 0) < 0 && errno == EINTR) {
  }
  int status = 0;
  pid_t reaped = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((reaped = ::waitpid(program, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (reaped == 0) {  // still running: the check fails, and the program goes
    ::kill(program, SIGKILL);
    ::waitpid(program, nullptr, 0);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  REQUIRE(reaped == program);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}
