// `hetperf probe`: measure this machine and write its measurement file; or serve the TCP ping-pong.
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
#include "probe_args.hpp"

namespace hetperf::cli {
namespace {

std::string duration_text(double s) {
  char b[32];
  if (s >= 60)
    std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(b, sizeof b, "%.0fs", s);
  return b;
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
