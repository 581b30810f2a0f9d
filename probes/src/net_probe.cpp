// Network probe: run hetperf-pingpong under mpiexec and parse its JSON.
#include "hetperf/probes/net_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::probes {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

CommandResult run_capturing_stdout(const std::vector<std::string>& argv) {
  HETPERF_CHECK(!argv.empty(), "empty command");
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw EnvironmentError(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Own process group, so that an interrupt can take down the launcher and everything it started.
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out[1], 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ChildProcess child(pid, true);
  ::close(out[1]);
  CommandResult result;
  char chunk[4096];
  for (;;) {
    if (interrupted()) {
      ::close(out[0]);
      throw Interrupted();
    }
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
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) break;
    if (interrupted()) throw Interrupted();
  }
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (result.status == 127) throw EnvironmentError("cannot run " + argv[0] + " (not found in PATH?)");
  return result;
}

std::optional<double> bandwidth_from_pingpong(const std::vector<PingPongPoint>& points) {
  if (points.empty() || points.back().size_bytes == 0 || !(points.back().one_way_s.mean > 0)) return std::nullopt;
  return static_cast<double>(points.back().size_bytes) / points.back().one_way_s.mean;
}

std::vector<std::uint64_t> NetProbeOptions::default_sizes(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes = {0};
  for (std::uint64_t s = 1; s <= max_bytes; s *= 2) sizes.push_back(s);
  return sizes;
}

std::string executable_directory() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

NetMeasurement probe_net(const NetProbeOptions& o) {
  std::string program = o.pingpong_program.empty() ? executable_directory() + "/hetperf-pingpong" : o.pingpong_program;
  if (::access(program.c_str(), X_OK) != 0) {
    throw EnvironmentError(program + ": the MPI ping-pong program is missing (build target hetperf-pingpong)");
  }
  std::string sizes;
  for (auto s : o.sizes_bytes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
  std::vector<std::string> argv = {o.mpiexec, "-n", "2"};
  if (!o.hosts.empty()) argv.insert(argv.end(), {"-hosts", o.hosts});
  argv.insert(argv.end(), {program, "--sizes", sizes, "--min-samples", std::to_string(o.repeat.min_samples),
                           "--target", std::to_string(o.repeat.target_relative_half_width), "--time-cap",
                           std::to_string(o.repeat.time_cap_s)});
  if (o.loggp) argv.insert(argv.end(), {"--loggp", std::to_string(o.loggp_large_bytes)});
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  auto [status, output] = run_capturing_stdout(argv);
  if (status != 0) {
    throw EnvironmentError("MPI ping-pong failed (" + cmd + "): exit status " + std::to_string(status) +
                           (output.empty() ? std::string() : ", output: " + output.substr(0, 400)));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(output);
  } catch (const nlohmann::json::exception& e) {
    throw EnvironmentError("MPI ping-pong printed something that is not its JSON result: " + output.substr(0, 400));
  }
  NetMeasurement m;
  m.transport = "mpi";
  m.settings = {{"sizes_bytes", o.sizes_bytes},
                {"hosts", o.hosts.empty() ? "loopback" : o.hosts},
                {"launcher", o.mpiexec},
                {"min_samples", o.repeat.min_samples},
                {"target_relative_half_width", o.repeat.target_relative_half_width},
                {"time_cap_s", o.repeat.time_cap_s},
                {"mpi_library", j.value("mpi_library", "")}};
  JsonNode root(j, "hetperf-pingpong output");
  for (const auto& h : root.array("hosts")) m.hosts.push_back(h.as_string());
  for (const auto& p : root.array("pingpong", 1)) {
    m.pingpong.push_back({static_cast<std::uint64_t>(p.integer("size_bytes", 0, INT64_MAX)),
                          sample_summary_from_json(p.object("one_way_s"))});
  }
  m.bandwidth_bytes_per_s = bandwidth_from_pingpong(m.pingpong);
  if (auto g = root.optional("loggp")) {
    LogGPParameters p;
    p.small_size_bytes = static_cast<std::uint64_t>(g->integer("small_size_bytes", 0, INT64_MAX));
    p.large_size_bytes = static_cast<std::uint64_t>(g->integer("large_size_bytes", 0, INT64_MAX));
    p.send_overhead_s = sample_summary_from_json(g->object("send_overhead_s"));
    p.receive_overhead_s = sample_summary_from_json(g->object("receive_overhead_s"));
    p.gap_s = sample_summary_from_json(g->object("gap_s"));
    p.gap_per_byte_s = g->number("gap_per_byte_s");
    p.latency_s = g->number("latency_s");
    m.loggp = p;
  }
  return m;
}

}  // namespace hetperf::probes
