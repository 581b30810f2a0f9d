// Runs the selected probes, recording what was skipped and why.
#include "hetperf/probes/probe_suite.hpp"

#include "hetperf/model/error.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/host_facts.hpp"

namespace hetperf::probes {

SuiteOptions SuiteOptions::quick() {
  SuiteOptions o;
  o.cpu.integer_iterations = 10'000'000;
  o.cpu.float_iterations = 5'000'000;
  o.cpu.repeat.time_cap_s = 4;
  o.disk.file_size_bytes = 32ull << 20;
  o.disk.repeat.time_cap_s = 5;
  o.net.sizes_bytes = {0, 32, 1024, 32768, 1u << 20};
  o.net.repeat.time_cap_s = 1.5;
  return o;
}

Measurement run_probe_suite(const SuiteOptions& o, const std::function<void(const std::string&)>& progress) {
  install_cleanup_handlers();
  Measurement m;
  m.hetperf_version = kVersion;
  m.command = o.command;
  m.host = collect_host_info();
  m.machine = o.machine.empty() ? m.host.hostname : o.machine;
  auto attempt = [&](const std::string& name, auto&& body) {
    if (!o.only.count(name)) return;
    progress(name + ": measuring");
    try {
      body();
    } catch (const EnvironmentError& e) {
      m.skipped.push_back({name, e.what()});
      progress(name + ": skipped: " + e.what());
    }
  };
  attempt("cpu", [&] { m.cpu = probe_cpu(o.cpu); });
  attempt("disk", [&] { m.disk = probe_disk(o.disk); });
  attempt("net", [&] { m.net = probe_net(o.net); });
  return m;
}

}  // namespace hetperf::probes
