// fork/exec with a captured standard output (see process.hpp).
#include "hetperf/model/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "hetperf/model/error.hpp"

namespace hetperf {
namespace {

int exit_status(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Terminates the child's group (SIGTERM first, so that a launcher can take its own children down)
// and reaps the child.
void stop_group(pid_t pid) {
  ::kill(-pid, SIGTERM);
  for (int k = 0; k < 50; ++k) {
    if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
    ::usleep(20000);
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  HETPERF_CHECK(!argv.empty(), "empty command");
  int out[2] = {-1, -1};
  if (options.capture_stdout && ::pipe2(out, O_CLOEXEC) != 0) {
    throw EnvironmentError(std::string("pipe: ") + std::strerror(errno));
  }
  // The failure to exec is reported through a close-on-exec pipe: EOF means the exec succeeded.
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) throw EnvironmentError(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    // In a group of its own it would outlive a hetperf killed outright, and go on writing where the next
    // run cleans up: it is sent SIGTERM when we die (kept across the exec; a launcher takes its own
    // children down on it), and gives up if we are already gone.
    if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) ::_exit(127);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (options.capture_stdout) ::dup2(out[1], 1);
    if (!options.directory.empty() && ::chdir(options.directory.c_str()) != 0) {
      int e = errno;
      (void)!::write(exec_error[1], &e, sizeof e);
      ::_exit(127);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    int e = errno;
    (void)!::write(exec_error[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  std::shared_ptr<void> guard = options.on_start ? options.on_start(pid) : nullptr;
  ::close(exec_error[1]);
  int child_errno = 0;
  if (::read(exec_error[0], &child_errno, sizeof child_errno) == static_cast<ssize_t>(sizeof child_errno)) {
    ::close(exec_error[0]);
    if (options.capture_stdout) ::close(out[0]), ::close(out[1]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw EnvironmentError("cannot run " + argv[0] +
                           (options.directory.empty() ? "" : " in " + options.directory.string()) + ": " +
                           std::strerror(child_errno));
  }
  ::close(exec_error[0]);
  CommandResult result;
  auto stop = [&] {
    if (options.capture_stdout) ::close(out[0]);
    stop_group(pid);
    throw CommandStopped();
  };
  if (options.capture_stdout) {
    ::close(out[1]);
    char chunk[4096];
    for (;;) {
      if (options.stop_requested && options.stop_requested()) stop();
      pollfd pfd{out[0], POLLIN, 0};
      int r = ::poll(&pfd, 1, 200);
      if (r < 0 && errno != EINTR) break;
      if (r <= 0) continue;
      ssize_t n = ::read(out[0], chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      result.output.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
  }
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, options.capture_stdout ? 0 : WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (options.stop_requested && options.stop_requested()) stop();
    if (r == 0) ::usleep(20000);
  }
  result.status = exit_status(status);
  return result;
}

std::string display_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                         "@%+=:,./-_") == std::string::npos;
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (line.empty() ? "" : " ") + (plain ? a : quoted + "'");
  }
  return line;
}

std::optional<std::filesystem::path> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& directory) {
  auto gnuplot = find_on_path("gnuplot");
  if (!gnuplot) throw EnvironmentError("gnuplot not found on PATH (install gnuplot-nox) to draw " + script.string());
  CommandOptions o;
  o.directory = directory;
  o.capture_stdout = false;
  CommandResult r = run_command({gnuplot->string(), script.string()}, o);
  if (r.status != 0) {
    throw EnvironmentError("gnuplot failed (exit status " + std::to_string(r.status) + ") on " + script.string());
  }
}

}  // namespace hetperf
