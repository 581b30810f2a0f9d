// `hetperf probe`: measure this machine and write its measurement file.
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
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
  std::uint64_t disk_buffer = 1 << 20;
  double precision = 0.02;
  std::size_t min_samples = 10;
  double time_cap = 0;
  std::string hosts;
  std::string mpiexec = "mpiexec";
  std::vector<std::uint64_t> sizes;
};

void print_summary(const Measurement& m, const std::string& out) {
  auto figure = [](const SampleSummary& s, const char* unit, double scale = 1) {
    std::ostringstream os;
    os << si(s.mean * scale, unit) << "  (95% CI " << si(s.ci95_low * scale, "") << ".." << si(s.ci95_high * scale, "")
       << ", n=" << s.n << (s.precise ? "" : ", imprecise: time cap hit") << ")";
    return os.str();
  };
  std::cout << "machine " << m.machine << " (" << m.host.cpu_model << ", " << m.host.cores << " cores)\n";
  if (m.cpu) {
    std::cout << "  cpu     MIPS        " << figure(m.cpu->mips, "") << "\n"
              << "          MFLOPS      " << figure(m.cpu->mflops, "") << "\n"
              << "          MIPS method " << m.cpu->mips_method << "\n";
  }
  if (m.disk) {
    std::cout << "  disk    write       " << figure(m.disk->write_buffered_bytes_per_s, "B/s") << " buffered+fdatasync\n"
              << "          write       " << figure(m.disk->write_direct_bytes_per_s, "B/s")
              << (m.disk->direct_io ? " O_DIRECT\n" : " (no O_DIRECT)\n")
              << "          read        " << figure(m.disk->read_direct_bytes_per_s, "B/s")
              << (m.disk->direct_io ? " O_DIRECT\n" : " (no O_DIRECT)\n");
  }
  if (m.net) {
    for (const auto& p : m.net->pingpong) {
      std::cout << "  net     " << std::to_string(p.size_bytes) << " B one-way: " << figure(p.one_way_s, "s") << "\n";
    }
  }
  for (const auto& s : m.skipped) std::cout << "  skipped " << s.probe << ": " << s.reason << "\n";
  std::cout << "wrote " << out << "\n";
}

}  // namespace

void add_probe_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand("probe", "Measure this machine: CPU (MIPS, MFLOPS), disk throughput, MPI latency "
                                              "and bandwidth. Each figure is repeated until its 95% confidence "
                                              "interval is narrow enough, then written with its raw samples.");
  cmd->add_option("-o,--out", args->out, "Measurement file to write (atomically)")->capture_default_str();
  cmd->add_flag("--quick", args->quick, "Short run: smaller disk file, shorter time caps (about a minute)");
  cmd->add_option("--only", args->only, "Probes to run, comma-separated: cpu,disk,net (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "disk", "net"}));
  cmd->add_option("--machine", args->machine, "Name of this computer in the profile (default: the hostname)");
  cmd->add_option("--dir", args->dir, "Directory for the disk probe's scratch file (removed afterwards)")
      ->capture_default_str();
  cmd->add_option("--disk-size", args->disk_size,
                  "Bytes written and read per disk sample (default: 268435456, or 33554432 with --quick)");
  cmd->add_option("--disk-buffer", args->disk_buffer, "Bytes per read/write call, a multiple of 4096")
      ->capture_default_str();
  cmd->add_option("--precision", args->precision, "Target 95% CI half-width relative to the mean")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 1.0));
  cmd->add_option("--min-samples", args->min_samples, "Minimum samples per figure")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000000));
  cmd->add_option("--time-cap", args->time_cap,
                  "Seconds of sampling per figure before it is reported as imprecise (default: 30, or 1.5-5 with --quick)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--hosts", args->hosts, "Two hosts 'a,b' for the MPI ping-pong (default: both ranks on this machine)");
  cmd->add_option("--mpiexec", args->mpiexec, "MPI launcher")->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "Ping-pong message sizes in bytes, comma-separated (default: 0,32,1024,32768,1048576)")
      ->delimiter(',');
  cmd->callback([&action, args, command_line] {
    action = [args, command_line] {
      probes::SuiteOptions o = args->quick ? probes::SuiteOptions::quick() : probes::SuiteOptions{};
      if (!args->only.empty()) o.only = {args->only.begin(), args->only.end()};
      o.machine = args->machine;
      o.command = command_line;
      o.disk.directory = args->dir;
      if (args->disk_size) o.disk.file_size_bytes = args->disk_size;
      o.disk.buffer_bytes = args->disk_buffer;
      o.net.hosts = args->hosts;
      o.net.mpiexec = args->mpiexec;
      if (!args->sizes.empty()) o.net.sizes_bytes = args->sizes;
      for (probes::RepeatOptions* r : {&o.cpu.repeat, &o.disk.repeat, &o.net.repeat}) {
        r->target_relative_half_width = args->precision;
        r->min_samples = args->min_samples;
        if (args->time_cap > 0) r->time_cap_s = args->time_cap;
      }
      bool verbose = stderr_is_terminal();
      Measurement m = probes::run_probe_suite(o, [verbose](const std::string& line) {
        if (verbose) std::cerr << "hetperf probe: " << line << std::endl;
      });
      if (m.skipped.size() == o.only.size()) {
        std::string why;
        for (const auto& s : m.skipped) why += "\n  " + s.probe + ": " + s.reason;
        throw EnvironmentError("no probe could run; nothing written" + why);
      }
      write_json_file(args->out, to_json(m));
      print_summary(m, args->out);
      return 0;
    };
  });
}

}  // namespace hetperf::cli
