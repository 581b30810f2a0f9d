// Network probe: run hetperf-pingpong under mpiexec and parse its JSON.
#include "hetperf/probes/net_probe.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"

namespace hetperf::probes {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

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
  std::string cmd = shell_quote(o.mpiexec) + " -n 2";
  if (!o.hosts.empty()) cmd += " -hosts " + shell_quote(o.hosts);
  cmd += " " + shell_quote(program) + " --sizes " + sizes + " --min-samples " + std::to_string(o.repeat.min_samples) +
         " --target " + std::to_string(o.repeat.target_relative_half_width) + " --time-cap " +
         std::to_string(o.repeat.time_cap_s) + " </dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw EnvironmentError("cannot start " + o.mpiexec);
  std::string output;
  std::array<char, 4096> chunk{};
  while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) output.append(chunk.data(), n);
  int status = ::pclose(pipe);
  if (status != 0) {
    throw EnvironmentError("MPI ping-pong failed (" + cmd + "): exit status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
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
  return m;
}

}  // namespace hetperf::probes
