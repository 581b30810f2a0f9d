// `hetperf probe`: measure this machine and write its measurement file; or serve the TCP ping-pong.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "checks.hpp"
#include "commands.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/console_report.hpp"
#include "hetperf/probes/probe_suite.hpp"
#include "output.hpp"

namespace hetperf::cli {
namespace {

struct ProbeArgs {
  std::string out = "measurement.json";
  bool quick = false;
  std::vector<std::string> only;
  std::string machine;
  std::string dir = ".";
  std::uint64_t disk_size = 0;
  std::uint64_t disk_buffer = 0;
  std::vector<std::uint64_t> disk_sweep;
  double precision = 0.02;
  std::size_t min_samples = 10;
  double time_cap = 0;
  std::string hosts;
  std::string mpiexec = "mpiexec";
  std::vector<std::uint64_t> sizes;
  bool no_loggp = false;
  bool no_handoff = false;
  int threads = 1;
  std::vector<std::uint64_t> blocks;
  std::uint64_t lu_rows = 0;
  double memory_limit = 0;
  std::size_t memory_passes = 0;
  double swap = -1;
  bool no_confine = false;
  std::uint16_t serve = 0;
  std::string bind = "0.0.0.0";
  bool once = false;
  std::string connect;
};

std::string duration_text(double s) {
  char b[32];
  if (s >= 60)
    std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(b, sizeof b, "%.0fs", s);
  return b;
}

// The probe suite's options from the command line's: `precision_given` and `min_samples_given` say
// whether those were given (the memory curve keeps its own rule otherwise).
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

int run_probe(const ProbeArgs& a, const std::string& command_line, bool precision_given, bool min_samples_given) {
  const bool verbose = stderr_is_terminal();
  if (a.serve) {
    bool finished = probes::serve_tcp(a.serve, a.bind, a.once, [verbose](const std::string& line) {
      if (verbose) std::cerr << "hetperf probe --serve: " << line << std::endl;
    });
    return finished ? 0 : 130;
  }
  probes::SuiteOptions o = suite_options(a, command_line, precision_given, min_samples_given);
  // Kernel options are checked before any probe runs, so a bad --lu-rows costs nothing.
  if (auto e = o.cpu.kernel.validate(); !e.empty()) throw InputError("--blocks, --lu-rows: " + e);
  probes::install_cleanup_handlers();
  Measurement m = probes::run_probe_suite(o, [verbose](const probes::Progress& p) {
    if (!verbose) return;
    std::string left = p.fraction_done > 0.02 && p.fraction_done < 1
                           ? ", ~" + duration_text(p.elapsed_s * (1 - p.fraction_done) / p.fraction_done) + " left"
                           : "";
    std::cerr << "hetperf probe [" << static_cast<int>(std::lround(100 * p.fraction_done)) << "%, "
              << duration_text(p.elapsed_s) << left << "] " << p.what << std::endl;
  });
  if (m.complete && m.skipped.size() == o.only.size()) {
    std::string why;
    for (const auto& s : m.skipped) why += "\n  " + s.probe + ": " + s.reason;
    throw EnvironmentError("no probe could run; nothing written" + why);
  }
  write_json_file(a.out, to_json(m));
  probes::print_measurement(m, a.out, m.complete ? std::cout : std::cerr);
  return m.complete ? 0 : 130;
}

// The disk probe's options.
void add_disk_options(CLI::App* cmd, ProbeArgs* args) {
  cmd->add_option("--disk-size", args->disk_size,
                  "Bytes written and read per disk sample (default: 268435456, or 134217728 with --quick)");
  cmd->add_option("--disk-buffer", args->disk_buffer,
                  "Bytes per read/write call, a multiple of 4096 (default: 4194304, or --disk-size if smaller)");
  cmd->add_option("--disk-sweep", args->disk_sweep,
                  "Buffer sizes of the disk sweep, comma-separated multiples of 4096 (default: 4 KiB..16 MiB; 0: none)")
      ->delimiter(',');
}

// The cpu probe's kernel options.
void add_cpu_options(CLI::App* cmd, ProbeArgs* args) {
  cmd->add_option("--threads", args->threads, "OpenBLAS threads for the kernel timings")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--blocks", args->blocks,
                  "Kernel block sizes, comma-separated (default: 32..1024, or 32..256 with --quick)")
      ->delimiter(',')
      ->check(CLI::Range(1, 8192));
  cmd->add_option("--lu-rows", args->lu_rows,
                  "Also time the kernels at the block LU's own shapes in a matrix of this many rows (tall gemm and "
                  "getrf panels, leading dimension = rows; use the n of the LU to predict; at least twice the "
                  "largest block). 0: compact r x r blocks only")
      ->capture_default_str()
      ->check(CLI::Range(0, 65536));
}

// The memory probe's options.
void add_memory_options(CLI::App* cmd, ProbeArgs* args) {
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Emulated main memory in MB: the memory cgroup's limit (default: 256, or 128 with --quick)")
      ->check(CLI::Range(16.0, 1e6));
  cmd->add_option("--swap", args->swap,
                  "Swap file size in MB for the memory probe (default: the memory limit; 0: none)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--memory-passes", args->memory_passes,
                  "Ascents through the memory curve's occupations, each point's rounds pooled over them, so that "
                  "a slow spell of the machine moves a share of a point's rounds, not all (default: 3, or 1 "
                  "with --quick)")
      ->check(CLI::Range(1, 10));
  cmd->add_flag("--no-confine", args->no_confine,
                "Memory probe without cgroup or swap file: stays below a safe share of MemAvailable");
}

// The network probe's options (MPI ping-pong, or TCP with --serve and --connect).
void add_net_options(CLI::App* cmd, ProbeArgs* args) {
  cmd->add_option("--hosts", args->hosts,
                  "Two hosts 'a,b' for the MPI ping-pong (default: both ranks on this machine)");
  cmd->add_option("--mpiexec", args->mpiexec, "MPI launcher")->capture_default_str();
  cmd->add_option("--sizes", args->sizes,
                  "Ping-pong message sizes in bytes, comma-separated (default: 0 and powers of two to 16 MiB; "
                  "0,32,1024,32768,1048576 with --quick)")
      ->delimiter(',');
  cmd->add_flag("--no-loggp", args->no_loggp, "Skip the LogGP parameters of the MPI probe");
  cmd->add_flag("--no-handoff", args->no_handoff,
                "Skip the hand-off of ranks on this machine with twice as many ranks as cores (MPI probe)");
  auto* serve = cmd->add_option("--serve", args->serve,
                                "Serve the TCP ping-pong on PORT for `--connect` clients; "
                                "runs until Ctrl-C (no measurement file)");
  cmd->add_option("--bind", args->bind, "IPv4 address --serve listens on")->capture_default_str();
  cmd->add_flag("--once", args->once, "With --serve: exit after the first client's session");
  cmd->add_option("--connect", args->connect,
                  "Net probe over TCP against `hetperf probe --serve` at HOST:PORT "
                  "(instead of MPI)")
      ->excludes(serve);
}

}  // namespace

void add_probe_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand("probe",
                                     "Measure this machine: CPU (MIPS, MFLOPS, BLAS/LAPACK kernels), memory "
                                     "slowdown curve, disk throughput, network latency and bandwidth (MPI "
                                     "or TCP). Each figure is repeated until its 95% confidence interval is "
                                     "narrow enough, then written with its raw samples. Ctrl-C writes what "
                                     "was measured so far, marked incomplete, and exits 130.");
  cmd->add_option("-o,--out", args->out, "Measurement file to write (atomically)")->capture_default_str();
  cmd->add_flag("--quick", args->quick,
                "Short run: few block sizes, small memory experiment, smaller disk file, shorter caps");
  cmd->add_option("--only", args->only, "Probes to run, comma-separated: cpu,memory,disk,net (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "memory", "disk", "net"}));
  cmd->add_option("--machine", args->machine, "Name of this computer in the profile (default: the hostname)");
  cmd->add_option("--dir", args->dir,
                  "Directory for the disk probe's scratch file and the memory probe's swap file "
                  "(removed afterwards)")
      ->capture_default_str();
  add_disk_options(cmd, args.get());
  add_cpu_options(cmd, args.get());
  add_memory_options(cmd, args.get());
  auto* precision = cmd->add_option("--precision", args->precision,
                                    "Target 95% CI half-width relative to the mean (the median "
                                    "for the memory curve's points, default 0.1 there)")
                        ->capture_default_str()
                        ->check(CLI::Range(1e-6, 1.0));
  auto* min_samples =
      cmd->add_option("--min-samples", args->min_samples, "Minimum samples per figure (memory curve: 9)")
          ->capture_default_str()
          ->check(CLI::Range(2, 1000000));
  cmd->add_option(
         "--time-cap", args->time_cap,
         "Seconds of sampling per figure before it is reported as imprecise (default: 30, or 1-5 with --quick)")
      ->check(positive_number());
  add_net_options(cmd, args.get());
  cmd->callback([&action, args, command_line, precision, min_samples] {
    action = [args, command_line, precision, min_samples] {
      return run_probe(*args, command_line, precision->count() > 0, min_samples->count() > 0);
    };
  });
}

}  // namespace hetperf::cli
