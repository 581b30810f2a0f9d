// The options of each probe of `hetperf probe` (probe_args.hpp).
#include "checks.hpp"
#include "probe_args.hpp"

namespace hetperf::cli {

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

}  // namespace hetperf::cli
