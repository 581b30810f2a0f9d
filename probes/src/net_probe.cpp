// Network probe: run hetperf-pingpong under mpiexec and parse its JSON.
#include "hetperf/probes/net_probe.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hetperf/model/error.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::probes {

CommandResult run_capturing_stdout(const std::vector<std::string>& argv) {
  CommandOptions o;
  o.stop_requested = interrupted;
  // Registered for the emergency clean-up of a second signal; killed and reaped with its group.
  o.on_start = [](pid_t pid) { return std::make_shared<ChildProcess>(pid, true); };
  try {
    return run_command(argv, o);
  } catch (const CommandStopped&) {
    throw Interrupted();
  }
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

namespace {

std::string pingpong_program(const NetProbeOptions& o) {
  std::string program = o.pingpong_program.empty() ? executable_directory() + "/hetperf-pingpong" : o.pingpong_program;
  if (::access(program.c_str(), X_OK) != 0) {
    throw EnvironmentError(program + ": the MPI ping-pong program is missing (build target hetperf-pingpong)");
  }
  return program;
}

// Runs the ping-pong program (`argv`) and parses the JSON it prints.
nlohmann::json run_pingpong(const std::vector<std::string>& argv) {
  const std::string cmd = display_command(argv);
  auto [status, output] = run_capturing_stdout(argv);
  if (status != 0) {
    throw EnvironmentError("MPI ping-pong failed (" + cmd + "): exit status " + std::to_string(status) +
                           (output.empty() ? std::string() : ", output: " + output.substr(0, 400)));
  }
  try {
    return nlohmann::json::parse(output);
  } catch (const nlohmann::json::exception& e) {
    throw EnvironmentError("MPI ping-pong printed something that is not its JSON result: " + output.substr(0, 400));
  }
}

}  // namespace

HandoffMeasurement probe_handoff(const NetProbeOptions& o, int cores, std::uint64_t bytes) {
  const std::string program = pingpong_program(o);
  // Every rank on this machine, or with --hosts on the first of them (a testbed computer probing
  // itself and its peer: the ranks must start inside it, through its launcher).
  const std::string here = o.hosts.substr(0, o.hosts.find(','));
  auto period = [&](int ranks) {
    // Oversubscribing this machine on purpose: MPICH's launcher needs no permission for it.
    std::vector<std::string> argv = {o.mpiexec};
    if (!here.empty()) argv.insert(argv.end(), {"-hosts", here});
    argv.insert(argv.end(),
                {"-n", std::to_string(ranks), program, "--fanout", std::to_string(bytes), "--min-samples",
                 std::to_string(o.repeat.min_samples), "--target", std::to_string(o.repeat.target_relative_half_width),
                 "--time-cap", std::to_string(o.repeat.time_cap_s)});
    const nlohmann::json j = run_pingpong(argv);
    return sample_summary_from_json(
        JsonNode(j, "hetperf-pingpong --fanout output").object("fanout").object("period_s"));
  };
  HandoffMeasurement h;
  h.cores = std::max(1, cores);
  h.bytes = bytes;
  if (h.cores > 1) h.period_at_cores_s = period(h.cores);
  h.period_oversubscribed_s = period(2 * h.cores);
  // Means, not medians: a round's cost is the sum of rare long waits to be scheduled in.
  h.handoff_s = handoff_from_fanout(
      h.cores, h.period_at_cores_s ? std::optional<double>(h.period_at_cores_s->mean) : std::nullopt,
      h.period_oversubscribed_s.mean);
  return h;
}

NetMeasurement probe_net(const NetProbeOptions& o) {
  const std::string program = pingpong_program(o);
  std::string sizes;
  for (auto s : o.sizes_bytes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
  std::vector<std::string> argv = {o.mpiexec, "-n", "2"};
  if (!o.hosts.empty()) argv.insert(argv.end(), {"-hosts", o.hosts});
  argv.insert(argv.end(),
              {program, "--sizes", sizes, "--min-samples", std::to_string(o.repeat.min_samples), "--target",
               std::to_string(o.repeat.target_relative_half_width), "--time-cap", std::to_string(o.repeat.time_cap_s)});
  if (o.loggp) argv.insert(argv.end(), {"--loggp", std::to_string(o.loggp_large_bytes)});
  // Between two computers, how long large sends hold their sender (the network's send buffer); on one
  // machine a message never crosses a network.
  if (!o.hosts.empty() && o.send_times_from_bytes > 0) {
    argv.insert(argv.end(), {"--send-times", std::to_string(o.send_times_from_bytes)});
  }
  if (o.busy_sends_from_bytes > 0) argv.insert(argv.end(), {"--busy-sends", std::to_string(o.busy_sends_from_bytes)});
  const nlohmann::json j = run_pingpong(argv);
  NetMeasurement m;
  m.transport = "mpi";
  m.settings = {{"sizes_bytes", o.sizes_bytes},
                {"hosts", o.hosts.empty() ? "loopback" : o.hosts},
                {"launcher", o.mpiexec},
                {"min_samples", o.repeat.min_samples},
                {"target_relative_half_width", o.repeat.target_relative_half_width},
                {"time_cap_s", o.repeat.time_cap_s},
                {"mpi_library", j.value("mpi_library", "")}};
  if (!o.hosts.empty() && o.send_times_from_bytes > 0) m.settings["send_times_from_bytes"] = o.send_times_from_bytes;
  if (o.busy_sends_from_bytes > 0) m.settings["busy_sends_from_bytes"] = o.busy_sends_from_bytes;
  JsonNode root(j, "hetperf-pingpong output");
  for (const auto& h : root.array("hosts")) m.hosts.push_back(h.as_string());
  for (const auto& p : root.array("pingpong", 1)) {
    m.pingpong.push_back({static_cast<std::uint64_t>(p.integer("size_bytes", 0, INT64_MAX)),
                          sample_summary_from_json(p.object("one_way_s"))});
    if (auto send = p.optional("send_s")) m.pingpong.back().send_s = sample_summary_from_json(*send);
  }
  m.bandwidth_bytes_per_s = bandwidth_from_pingpong(m.pingpong);
  if (auto busy = root.optional("busy_sends")) {
    for (const auto& b : busy->items()) {
      m.busy_sends.push_back({static_cast<std::uint64_t>(b.integer("size_bytes", 1, INT64_MAX)),
                              b.number("receiver_busy_s"), sample_summary_from_json(b.object("send_s"))});
    }
  }
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
