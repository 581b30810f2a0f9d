// A testbed: a cluster of unlike computers emulated on one Linux box, with known parameters, so that
// a prediction across unlike computers (UniMPP paper's c1..c4; DPS paper's nodes on a star network) can be
// checked against a real run whose ground truth is set, not guessed.
//
// Each computer is a network namespace with its own hostname (a UTS namespace), joined to a bridge by
// a veth pair shaped in both directions with `tc tbf` (and `netem delay` where the kernel has it), and
// three control groups: a cpuset with its cores, a CPU bandwidth cap (quota per short period) and a
// memory limit. Everything `up` creates is recorded in a state file *before* it is created, so `down`
// removes it all after a crash, a SIGINT or a `kill -9` of `up`. Needs root and Linux (iproute2).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetperf::validate {

inline constexpr int kTestbedSchemaVersion = 1;

struct TestbedLink {
  double rate_mbit = 0;  // tbf rate of the computer's link, each direction, Mbit/s (1e6 bit/s; > 0)
  double delay_ms = 0;   // netem delay added to each direction, ms (>= 0; 0: none)
};

struct TestbedComputer {
  std::string name;             // its hostname, and the name `mpiexec -hosts` uses: [a-z][a-z0-9-]*, at most 32
  std::vector<int> cores;       // host CPUs of its cpuset (each online here, at least one, no repeats)
  double cpu_share = 1;         // CPU bandwidth as a fraction of its cores' (0.01 .. 1; 1: uncapped)
  std::uint64_t memory_mb = 0;  // memory limit, MB (>= 16)
  TestbedLink link;
};

struct TestbedSpec {
  std::string name;                        // [a-z0-9]{1,8}: prefixes every resource the testbed creates
  std::string subnet = "10.231.0";         // the /24 of the computers: computer i is .i+1, this host .254
  std::uint32_t cpu_period_us = 10000;     // CFS period of the CPU caps, µs (1000 .. 1000000)
  std::vector<TestbedComputer> computers;  // 1 .. 200
};

// Reads and checks a spec ("schema": "hetperf.testbed/1"); InputError naming the file, the JSON path,
// the field and what was expected. The cores are checked against this machine's online CPUs.
TestbedSpec read_testbed_spec(const std::filesystem::path& file);
TestbedSpec parse_testbed_spec(const nlohmann::json& value, const std::string& file,
                               const std::vector<int>& online_cpus);
nlohmann::json to_json(const TestbedSpec& spec);

// The CPUs online on this machine (/sys/devices/system/cpu/online).
std::vector<int> online_cpus();

// Resource names (interface names are limited to 15 characters, hence the short prefixes).
std::string testbed_netns(const TestbedSpec& spec, std::size_t computer);      // hetperf-<tb>-<name>
std::string testbed_bridge(const TestbedSpec& spec);                           // hb-<tb>
std::string testbed_host_veth(const TestbedSpec& spec, std::size_t computer);  // hv-<tb>-<i>
std::string testbed_address(const TestbedSpec& spec, std::size_t computer);    // <subnet>.<i+1>
std::string testbed_host_address(const TestbedSpec& spec);                     // <subnet>.254

// The tc commands that shape one end of a link (tbf, then netem as its child when delay_ms > 0).
// `prefix` is {"tc"} or {"tc", "-n", netns}. The tbf burst is what the rate sends in 1 ms, at least
// 4 KiB (more than a full-size frame): a larger burst lets a message of that size pass at the veth's
// own speed (64 KiB went through a 64 KiB burst at 190 Mbit/s on a 100 Mbit/s link). A GSO
// super-packet larger than the burst is segmented by tbf, not dropped.
std::vector<std::vector<std::string>> shaping_commands(const std::vector<std::string>& prefix, const std::string& dev,
                                                       const TestbedLink& link);

struct TestbedOptions {
  std::filesystem::path state_dir = "/run/hetperf-testbed";  // state files and UTS namespace files
  std::string command;                                       // recorded in the state file
  int step_delay_ms = 0;  // pause before each resource (tests: to kill `up` midway); 0..10000
};

struct TestbedUpSummary {
  std::filesystem::path state_file;
  std::vector<std::string> notes;  // what is not emulated here (netem missing, ...)
  std::string brief_report() const;
};

// Creates the testbed. EnvironmentError when not root, a tool or a cgroup controller is missing, or a
// testbed of that name (complete or half-built) is already up: `down` first. On an error or SIGINT
// midway it removes what it made before returning (Interrupted is rethrown).
TestbedUpSummary testbed_up(const TestbedSpec& spec, const TestbedOptions& options);

struct TestbedDownSummary {
  std::vector<std::string> removed;   // one line per resource removed
  std::vector<std::string> problems;  // resources that could not be removed (and why)
  int processes_killed = 0;
};

// Removes the testbed `name` from its state file, in reverse order of creation, tolerating resources
// that are already gone; kills every process inside its computers first. The state file goes last,
// and only when everything went. EnvironmentError when there is no state file of that name.
TestbedDownSummary testbed_down(const std::string& name, const TestbedOptions& options);

// Names of the testbeds with a state file.
std::vector<std::string> testbed_names(const TestbedOptions& options);

// The state of a testbed (spec, resources, notes, complete), as written by `up`.
nlohmann::json testbed_state(const std::string& name, const TestbedOptions& options);

// The MPI transport of ranks in testbed computers: each variable as the environment already has it,
// else its default. MPICH over UCX takes two network namespaces of one kernel for one host and moves
// messages through shared memory and CMA; only TCP makes MPI traffic cross the shaped links. Eager
// messages of every size: UCX's rendezvous over TCP took 27 ms for 64 KiB on a 100 Mbit/s link (5 ms
// of wire time). docs/testbed.md.
std::vector<std::pair<std::string, std::string>> testbed_mpi_environment();

// Runs `argv` inside a computer: joins its cgroups, then execs it in the computer's network and UTS
// namespaces (nsenter) with the computer's /etc/hosts and /etc/resolv.conf bound over the host's, and
// with testbed_mpi_environment set. Both `hetperf testbed exec` and the launcher MPICH's hydra calls
// (`hetperf testbed launch`) come here: hydra starts the ranks of its own computer without the
// launcher, so an mpiexec inside a computer gets the transport of the ranks it launches elsewhere.
// Does not return; EnvironmentError when the computer is unknown or a step is refused. `testbed` may
// be empty when the computer's name is unique among the testbeds that are up.
[[noreturn]] void testbed_exec(const std::string& testbed, const std::string& computer,
                               const std::vector<std::string>& argv, const TestbedOptions& options);

}  // namespace hetperf::validate
