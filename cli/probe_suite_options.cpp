// The probe suite's options from `hetperf probe`'s (probe_args.hpp).
#include <algorithm>

#include "probe_args.hpp"

namespace hetperf::cli {

probes::SuiteOptions suite_options(const ProbeArgs& a, const std::string& command_line, bool precision_given,
                                   bool min_samples_given) {
  probes::SuiteOptions o = a.quick ? probes::SuiteOptions::quick() : probes::SuiteOptions{};
  if (!a.only.empty()) o.only = {a.only.begin(), a.only.end()};
  o.machine = a.machine;
  o.command = command_line;
  o.disk.directory = a.dir;
  o.memory.swap_directory = a.dir;
  if (a.disk_size) o.disk.file_size_bytes = a.disk_size;
  o.disk.buffer_bytes = a.disk_buffer ? a.disk_buffer : std::min(o.disk.buffer_bytes, o.disk.file_size_bytes);
  if (a.disk_sweep.size() == 1 && a.disk_sweep[0] == 0)
    o.disk.sweep_buffers_bytes.clear();
  else if (!a.disk_sweep.empty())
    o.disk.sweep_buffers_bytes = a.disk_sweep;
  o.cpu.kernel.threads = a.threads;
  if (!a.blocks.empty()) o.cpu.kernel.blocks = a.blocks;
  o.cpu.kernel.lu_rows = a.lu_rows;
  if (a.memory_limit > 0) {
    o.memory.limit_mb = a.memory_limit;
    o.memory.swap_mb = a.memory_limit;
  }
  if (a.swap >= 0) o.memory.swap_mb = a.swap;
  if (a.memory_passes > 0) o.memory.passes = a.memory_passes;
  o.memory.confine = !a.no_confine;
  o.net.hosts = a.hosts;
  o.net.mpiexec = a.mpiexec;
  o.net.loggp = !a.no_loggp;
  o.net.handoff = !a.no_handoff;
  if (!a.sizes.empty()) o.net.sizes_bytes = a.sizes;
  if (!a.connect.empty()) {
    probes::TcpProbeOptions t;
    probes::parse_host_port(a.connect, "--connect", t);
    t.sizes_bytes = o.net.sizes_bytes;
    t.repeat = o.net.repeat;
    o.tcp = t;
  }
  std::vector<probes::RepeatOptions*> all = {&o.cpu.repeat, &o.cpu.kernel.repeat, &o.disk.repeat, &o.net.repeat};
  if (o.tcp) all.push_back(&o.tcp->repeat);
  for (probes::RepeatOptions* r : all) {
    r->target_relative_half_width = a.precision;
    r->min_samples = a.min_samples;
    if (a.time_cap > 0) r->time_cap_s = a.time_cap;
  }
  // The memory curve's points keep their own rule (the median's interval, 10%) unless asked.
  if (precision_given) o.memory.repeat.target_relative_half_width = a.precision;
  if (min_samples_given) {
    o.memory.repeat.min_samples = a.min_samples;
    o.memory.repeat.max_samples = std::max(o.memory.repeat.max_samples, a.min_samples);
  }
  if (a.time_cap > 0) o.memory.repeat.time_cap_s = a.time_cap;
  return o;
}

}  // namespace hetperf::cli
