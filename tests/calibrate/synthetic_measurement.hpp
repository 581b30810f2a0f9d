// Measurement files drawn from known functions (UniMPP's Tables 1, 2, 4-6 and t = l + s/b), with
// seeded noise, for the calibration tests and benchmark.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hetperf/model/measurement.hpp"

namespace hetperf::testing {

// The UniMPP paper Tables 2, 5 and 6: α = a·x + b below the knee, c·e^(d·x) beyond it (x in MB).
struct SeedSlowdown {
  double a_per_mb, b, c, d_per_mb, knee_mb, swap_mb;
};
inline constexpr SeedSlowdown kTable2{0.0012, -0.0065, 0.0938, 0.0039, 1024, 1024};  // c1, c2
inline constexpr SeedSlowdown kTable5{0.0018, -0.0007, 0.7335, 0.0097, 256, 400};    // c3
inline constexpr SeedSlowdown kTable6{0.0018, -0.0035, 0.0924, 0.0095, 512, 512};    // c4

struct SyntheticOptions {
  std::string machine = "node";
  std::uint64_t seed = 1;
  double relative_noise = 0.0;  // multiplicative Gaussian noise on every sample (0.05 = 5%)
  int samples = 5;              // samples per figure
  double mips = 1145.86;        // UniMPP paper Table 1, c1
  double mflops = 400;
  SeedSlowdown memory = kTable2;
  bool memory_capacity_known = true;  // write probes.memory.main_memory_mb
  int memory_points_per_region = 12;
  bool with_memory = true;
  double latency_s = 40e-6;  // t = l + s/b
  double bandwidth_bytes_per_s = 1e9;
  std::uint64_t rendezvous_bytes = 0;  // > 0: sizes >= this use the second regime below
  double rendezvous_latency_s = 90e-6;
  double rendezvous_bandwidth_bytes_per_s = 2.5e9;
  int sizes = 24;  // ping-pong sizes 1, 2, 4, ... 2^(sizes-1) bytes
  std::vector<std::string> hosts = {"node", "node"};
  // >= 0: sizes from 64 KiB on also carry the time a blocking send took to return (send_s), of a
  // network whose buffers take this many bytes: l + max(0, s - B)/b.
  double send_buffer_bytes = -1;
  double disk_read_bytes_per_s = 76.28 * 1048576;  // UniMPP paper Table 1, c1
  double disk_write_bytes_per_s = 65.55 * 1048576;
  double dgemm_r3_s = 2.5e-10, dgemm_r2_s = 1e-9, dgemm_r0_s = 2e-6;
};

class SyntheticMeasurement {
 public:
  explicit SyntheticMeasurement(const SyntheticOptions& o) : o_(o), rng_(o.seed) {}

  // `samples` draws of v·(1 + ε), ε ~ N(0, relative_noise²).
  SampleSummary figure(double v) {
    std::normal_distribution<double> noise(0.0, o_.relative_noise);
    std::vector<double> s;
    for (int i = 0; i < o_.samples; ++i) s.push_back(o_.relative_noise > 0 ? v * (1 + noise(rng_)) : v);
    return summarize(s);
  }

  double alpha(double x) const {
    const SeedSlowdown& m = o_.memory;
    return x <= m.knee_mb ? m.a_per_mb * x + m.b : m.c * std::exp(m.d_per_mb * x);
  }

  double one_way_s(double s) const {
    if (o_.rendezvous_bytes > 0 && s >= static_cast<double>(o_.rendezvous_bytes)) {
      return o_.rendezvous_latency_s + s / o_.rendezvous_bandwidth_bytes_per_s;
    }
    return o_.latency_s + s / o_.bandwidth_bytes_per_s;
  }

  Measurement make() {
    Measurement m;
    m.machine = o_.machine;
    m.hetperf_version = "test";
    m.command = "synthetic";
    m.host.hostname = o_.machine;
    m.host.cores = 2;
    m.host.memory_bytes = static_cast<std::uint64_t>(o_.memory.knee_mb * 1048576);
    m.host.swap_bytes = static_cast<std::uint64_t>(o_.memory.swap_mb * 1048576);
    m.host.time_utc = "2026-11-21T00:00:00Z";
    CpuMeasurement cpu;
    cpu.mips = figure(o_.mips);
    cpu.mips_method = "synthetic";
    cpu.mflops = figure(o_.mflops);
    for (std::uint64_t r : {16, 32, 64, 96, 128, 192, 256}) {
      double x = static_cast<double>(r);
      cpu.kernels.push_back({"dgemm", r, 0, figure(o_.dgemm_r3_s * x * x * x + o_.dgemm_r2_s * x * x + o_.dgemm_r0_s)});
      cpu.kernels.push_back({"dlaswp", r, 0, figure(4e-9 * x * x + 2e-8 * x + 1e-6)});
    }
    cpu.integration_step_s = figure(2.5e-8);
    m.cpu = cpu;
    if (o_.with_memory) {
      MemoryMeasurement mem;
      if (o_.memory_capacity_known) mem.main_memory_mb = o_.memory.knee_mb;
      mem.swap_mb = o_.memory.swap_mb;
      mem.swap_measured = true;
      mem.confinement = "synthetic";
      const int k = o_.memory_points_per_region;
      for (int i = 1; i <= k; ++i) {
        double x = o_.memory.knee_mb * i / k;
        mem.points.push_back({x, figure(alpha(x))});
      }
      for (int i = 1; i <= k; ++i) {
        double x = o_.memory.knee_mb + o_.memory.swap_mb * i / k;
        mem.points.push_back({x, figure(alpha(x))});
      }
      m.memory = mem;
    }
    DiskMeasurement disk;
    disk.direct_io = true;
    disk.read_direct_bytes_per_s = figure(o_.disk_read_bytes_per_s);
    disk.write_direct_bytes_per_s = figure(o_.disk_write_bytes_per_s);
    disk.write_buffered_bytes_per_s = figure(o_.disk_write_bytes_per_s * 3);
    m.disk = disk;
    NetMeasurement net;
    net.transport = "mpi";
    net.hosts = o_.hosts;
    for (int i = 0; i < o_.sizes; ++i) {
      std::uint64_t s = std::uint64_t{1} << i;
      net.pingpong.push_back({s, figure(one_way_s(static_cast<double>(s)))});
      if (o_.send_buffer_bytes >= 0 && s >= (64u << 10)) {
        const double streamed = std::max(0.0, static_cast<double>(s) - o_.send_buffer_bytes);
        net.pingpong.back().send_s = figure(o_.latency_s + streamed / o_.bandwidth_bytes_per_s);
      }
    }
    m.net = net;
    return m;
  }

 private:
  SyntheticOptions o_;
  std::mt19937_64 rng_;
};

inline Measurement synthetic_measurement(const SyntheticOptions& o) { return SyntheticMeasurement(o).make(); }

}  // namespace hetperf::testing
