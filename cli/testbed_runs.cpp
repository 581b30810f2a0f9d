// `hetperf testbed` up, down and status (testbed_args.hpp).
#include <cstdio>
#include <iostream>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/net_probe.hpp"
#include "testbed_args.hpp"

namespace hetperf::cli {
namespace {

// The testbed `down` and `status` mean: --name, the name in --spec, or the only one that is up.
std::string chosen_testbed(const TestbedArgs& a) {
  if (!a.name.empty()) return a.name;
  if (!a.spec.empty()) return validate::read_testbed_spec(a.spec).name;
  auto names = validate::testbed_names(a.options);
  if (names.size() == 1) return names.front();
  if (names.empty())
    throw EnvironmentError("testbed: no testbed is up (no state file in " + a.options.state_dir.string() + ")");
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InputError("testbed: several testbeds are up (" + list + "): name one with --name");
}

}  // namespace

// `up`: the computers made, their addresses, and how to run MPI across them.
int run_up(const TestbedArgs& a) {
  const validate::TestbedSpec spec = validate::read_testbed_spec(a.spec);
  validate::TestbedUpSummary s;
  try {
    s = validate::testbed_up(spec, a.options);
  } catch (const probes::Interrupted&) {
    std::fprintf(stderr, "testbed: interrupted; what was made is removed\n");
    return 130;
  }
  std::printf("%s\n", s.brief_report().c_str());
  for (std::size_t i = 0; i < spec.computers.size(); ++i) {
    const auto& c = spec.computers[i];
    std::printf("  %-12s %-15s cores %zu at %3.0f%%, %llu MB, link %g Mbit/s%s\n", c.name.c_str(),
                validate::testbed_address(spec, i).c_str(), c.cores.size(), 100 * c.cpu_share,
                static_cast<unsigned long long>(c.memory_mb), c.link.rate_mbit,
                c.link.delay_ms > 0 ? (", delay " + std::to_string(c.link.delay_ms) + " ms").c_str() : "");
  }
  std::printf(
      "MPI across the computers: mpiexec -launcher rsh -launcher-exec %s/hetperf-testbed-launcher -hosts "
      "%s,... (or export HYDRA_LAUNCHER=rsh HYDRA_LAUNCHER_EXEC=that path)\n",
      probes::executable_directory().c_str(), spec.computers.front().name.c_str());
  return 0;
}

// `down`: what was removed; exit 3 when something could not be.
int run_down(const TestbedArgs& a) {
  const std::string name = chosen_testbed(a);
  const validate::TestbedDownSummary s = validate::testbed_down(name, a.options);
  for (const auto& r : s.removed) std::printf("removed %s\n", r.c_str());
  if (s.processes_killed) std::printf("killed %d process(es) inside its computers\n", s.processes_killed);
  for (const auto& p : s.problems) std::fprintf(stderr, "testbed: could not remove %s\n", p.c_str());
  if (!s.problems.empty()) {
    std::fprintf(stderr, "testbed: '%s' is not fully removed; its state file stays, run `down` again\n", name.c_str());
    return 3;
  }
  std::printf("testbed %s is down\n", name.c_str());
  return 0;
}

// `status`: the state of each testbed that is up (JSON).
int run_status(const TestbedArgs& a) {
  nlohmann::json all = nlohmann::json::object();
  for (const auto& n : a.name.empty() ? validate::testbed_names(a.options) : std::vector<std::string>{a.name}) {
    all[n] = validate::testbed_state(n, a.options);
  }
  std::cout << all.dump(2) << "\n";
  return 0;
}

}  // namespace hetperf::cli
