// Runs the selected probes, recording what was skipped and why, and stopping cleanly on SIGINT.
#include "hetperf/probes/probe_suite.hpp"

#include <algorithm>
#include <map>

#include "hetperf/model/error.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/host_facts.hpp"

namespace hetperf::probes {

SuiteOptions SuiteOptions::quick() {
  // Caps chosen so that the whole run stays near a minute on a busy 2-core machine.
  SuiteOptions o;
  o.cpu.integer_iterations = 10'000'000;
  o.cpu.float_iterations = 5'000'000;
  o.cpu.repeat.time_cap_s = 2;
  o.cpu.kernel.blocks = {32, 64, 128, 256};
  o.cpu.kernel.min_time_per_sample_s = 0.005;
  o.cpu.kernel.repeat.time_cap_s = 0.3;
  o.cpu.concurrency_rounds = 2;
  o.cpu.page_retouch.rounds = 5;
  o.memory.limit_mb = 128;
  o.memory.swap_mb = 128;
  o.memory.reference_mb = 16;
  o.memory.holder_mb = 16;
  o.memory.warmup_touches_per_page = 0.5;
  // Up to 60% of the swap file: the deepest points cost the most (every round swaps ~40% of its
  // touches) and took 4-9 s each on this VM while other tenants used its disk.
  o.memory.max_swap_fraction = 0.6;
  // One ascent with 2 s a point, not two of 0.75 s each: near the limit the residency settles over
  // hundreds of rounds after a fill (at 128 MB: alpha 5 for 40 rounds, 0.3-0.6 for 60, then 1.0-1.3),
  // and a climb's 0.75 s ended inside that swing, by however much each pass's rounds covered. Six
  // quick probes of each design, interleaved in a seeded order, twice (results/memory/README.md):
  // alpha at 128 / 131.2 / 134.4 MB 0.77-0.84 / 5.55 / 9.8-10.2 with one ascent against 1.73-2.20 /
  // 4.5-4.6 / 8.9 with two, where a 17 s visit read 1.0 / 7.1 / 10.9; every run within 25% of the
  // other runs' median at 45-46 of 48 points with either; the same 32-33 s.
  o.memory.repeat.time_cap_s = 2;
  o.memory.passes = 1;
  // The disk gets the largest share: a shared virtual disk drifts over seconds, and only samples
  // spread over several seconds per figure repeat within a few percent (the sweep is secondary).
  o.disk.file_size_bytes = 128ull << 20;
  o.disk.repeat.time_cap_s = 5;
  o.disk.sweep_buffers_bytes = {4096, 65536, 1u << 20, 16u << 20};
  o.disk.sweep_file_size_bytes = 8ull << 20;
  o.disk.sweep_time_cap_s = 0.6;
  o.net.sizes_bytes = {0, 32, 1024, 32768, 1u << 20};
  o.net.repeat.time_cap_s = 1;
  return o;
}

namespace {

// The cpu probe in three parts (MIPS and MFLOPS; the kernels and their concurrent copies; the time
// slice and the trapezium step), each kept in `m` as soon as it is done, so that an interruption keeps
// what was measured.
void probe_cpu_parts(const SuiteOptions& o, Measurement& m, const StepCallback& step) {
  CpuProbeOptions cpu = o.cpu;
  if (const auto& q = m.host.cpu_quota) {
    // Under a CPU quota the process runs share · period, then waits for the next period. A sample
    // of the kernels shorter than that (quick: 5 ms in a 10 ms period at half a core) either fell
    // in a run or took a wait, and their median put a half-core testbed computer's kernels at 1.65
    // times the whole core's time, not 2. Samples of ten periods or more take their share of the
    // waits; the time cap grows to keep several of them.
    cpu.kernel.min_time_per_sample_s = std::max(cpu.kernel.min_time_per_sample_s, 10 * q->period_s);
    cpu.kernel.repeat.time_cap_s = std::max(cpu.kernel.repeat.time_cap_s, 4 * cpu.kernel.min_time_per_sample_s);
    cpu.kernel.cpu_share = std::min(1.0, q->share);
  }
  CpuProbeOptions c = cpu;
  c.kernels = false;
  c.integration = false;
  step("MIPS and MFLOPS", 0);
  m.cpu = probe_cpu(c);
  m.cpu->settings = probe_cpu_settings(cpu);
  KernelProbeOptions k = cpu.kernel;
  k.on_step = [&step](const std::string& what, double f) { step(what, 0.1 + 0.85 * f); };
  if (o.cpu.kernels) m.cpu->kernels = probe_kernels(k);
  if (o.cpu.kernels && o.cpu.concurrency_rounds > 0) {
    step("the kernels' concurrent copies", 0.9);
    // The CPUs this process may run on, as the host facts count them (a testbed computer's cpuset),
    // not the machine's: one copy per core the measurement's computer has.
    m.cpu->concurrency = probe_concurrency(k, usable_cpus(), o.cpu.concurrency_rounds);
  }
  if (o.cpu.time_slice_s > 0) {
    step("the scheduler's time slice", 0.93);
    m.cpu->time_slice = probe_time_slice(usable_cpus(), o.cpu.time_slice_s);
  }
  if (o.cpu.page_retouch.rounds > 0) {
    step("re-touched pages", 0.94);
    m.cpu->page_retouch = probe_page_retouch(o.cpu.page_retouch);
  }
  step("trapezium step", 0.95);
  if (o.cpu.integration) m.cpu->integration_step_s = probe_integration_step(k);
}

// The network probe (MPI ping-pong, or TCP), then the hand-off of oversubscribed ranks.
void probe_net_parts(const SuiteOptions& o, Measurement& m, const StepCallback& step) {
  m.net = o.tcp ? probe_tcp(*o.tcp) : probe_net(o.net);
  if (o.tcp || !o.net.handoff) return;
  step("the hand-off of oversubscribed ranks", 0.8);
  try {
    // The CPUs this probe may use (a testbed computer's cpuset), as the host facts count them.
    m.net->handoff = probe_handoff(o.net, std::max(1, m.host.cores));
  } catch (const EnvironmentError& e) {
    m.skipped.push_back({"net.handoff", e.what()});
  }
}

}  // namespace

Measurement run_probe_suite(const SuiteOptions& o, const std::function<void(const Progress&)>& progress) {
  install_cleanup_handlers();
  const RunUsageMeter meter;
  const double start = monotonic_seconds();
  Measurement m;
  m.hetperf_version = kVersion;
  m.command = o.command;
  m.host = collect_host_info();
  m.machine = o.machine.empty() ? m.host.hostname : o.machine;
  // Rough shares of the run time, only for the progress estimate.
  const std::map<std::string, double> weight = {{"cpu", 0.35}, {"memory", 0.25}, {"disk", 0.2}, {"net", 0.2}};
  double total = 0, done = 0;
  for (const auto& name : o.only) total += weight.at(name);
  auto report = [&](const std::string& what, double fraction) {
    if (progress) progress({what, total > 0 ? fraction / total : 1, monotonic_seconds() - start});
  };
  auto attempt = [&](const std::string& name, auto&& body) {
    if (!o.only.count(name)) return;
    if (!m.complete) {
      m.skipped.push_back({name, "not run: interrupted"});
      return;
    }
    const double share = weight.at(name);
    StepCallback step = [&, name, share](const std::string& what, double f) {
      report(name + ": " + what, done + share * f);
    };
    report(name + ": starting", done);
    try {
      body(step);
      if (interrupted()) {
        // The probe stopped early on the signal and returned what it had measured (memory curve).
        m.complete = false;
        m.skipped.push_back({name, "interrupted by a signal before it finished; what it measured is kept"});
        report(name + ": interrupted", done);
      }
    } catch (const Interrupted&) {
      m.complete = false;
      m.skipped.push_back({name, "interrupted by a signal before it finished"});
      report(name + ": interrupted", done);
    } catch (const EnvironmentError& e) {
      m.skipped.push_back({name, e.what()});
      report(name + ": skipped: " + e.what(), done);
    }
    done += share;
  };
  attempt("cpu", [&](const StepCallback& step) { probe_cpu_parts(o, m, step); });
  attempt("memory", [&](const StepCallback& step) {
    MemoryProbeOptions mo = o.memory;
    mo.on_step = step;
    m.memory = probe_memory(mo);
  });
  attempt("disk", [&](const StepCallback&) { m.disk = probe_disk(o.disk); });
  attempt("net", [&](const StepCallback& step) { probe_net_parts(o, m, step); });
  if (interrupted()) m.complete = false;
  m.run_usage = meter.stop();
  report(m.complete ? "done" : "interrupted", total);
  return m;
}

}  // namespace hetperf::probes
