// The UniMPP response-time equations (UniMPP paper, de Mello and Senger, section 2, eq. 2-9) and the
// memory slowdown function α(occupied memory) of eq. 3. Pure functions: the simulator composes them
// with contention (processor sharing, FIFO disk and network interface) to produce waiting times.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hetperf::unimpp {

// α as a function of the memory occupied on a computer, in MB (UniMPP paper eq. 3 and Tables 2, 5, 6):
// linear a·x + b while the occupation fits in main memory, exponential c·e^(d·x) beyond it.
// α is a fraction: TEM = TE·(1 + α). It is never negative.
struct LinearSlowdown {
  double a_per_mb = 0;  // slope, 1/MB
  double b = 0;         // intercept
};
struct ExponentialSlowdown {
  double c = 0;         // scale
  double d_per_mb = 0;  // rate, 1/MB
};
// One point of a measured slowdown curve.
struct SlowdownPoint {
  double occupied_mb = 0;
  double alpha = 0;
};
struct SlowdownFunction {
  double main_memory_mb = 0;  // the knee: main-memory capacity
  LinearSlowdown main;
  std::optional<ExponentialSlowdown> virtual_memory;  // absent: swap region not measured (or a table)
  // The measured curve beyond the knee, occupied_mb strictly ascending and above the knee: used
  // instead of the exponential when not empty (UniMPP's delay function is the measured curve
  // itself, UniMPP paper section 2; calibrate keeps it where the exponential fits poorly).
  std::vector<SlowdownPoint> virtual_table = {};

  // α at `occupied_mb`. Beyond the knee: the table, interpolated linearly from (knee, linear part at
  // the knee) through its points, and beyond its last point extended along the chord from the knee to
  // that point; else the exponential; else the linear part extended (the only honest choice when the
  // swap region was not measured; the profile says so). Never below 0.
  double alpha(double occupied_mb) const;
  // "linear", "linear + exponential" or "linear + measured table (N points)".
  std::string form() const;
};

// eq. 2: TE = mp / pc, execution time without competition or delays. mp in MI, pc in MIPS.
double te(double mp_mi, double pc_mips);

// eq. 3: TEM = TE · (1 + α).
double tem(double te_s, double alpha);

// One disk access (eq. 4 and 5 summands): bsize / throughput + waiting time.
struct DiskAccess {
  double bytes = 0;
  double wait_s = 0;
};
// eq. 4 (reads, throughput dr) and eq. 5 (writes, throughput dw): Σ bsize_k / d + wt_k.
double disk_delay(std::span<const DiskAccess> accesses, double throughput_bytes_per_s);

// eq. 7: θ = 2·o + l, the time to send and receive one message without waiting. The profile's lo
// (UniMPP's "overhead + latency", measured at 32 B) is θ itself; the DPS extension t = l + s/b adds
// the size-dependent part s / b (DPS paper section 4), so θ(s) = lo + s / b.
double theta(double overhead_s, double latency_s);
double message_time(double lo_s, double size_bytes, double bandwidth_bytes_per_s);

// eq. 6: SLN = Σ θ_k + wtn_k.
struct MessageCost {
  double theta_s = 0;
  double wait_s = 0;
};
double network_delay(std::span<const MessageCost> messages);

// eq. 8: SL = TEM + SLDR + SLDW + SLN + lz.
double response_time(double tem_s, double sldr_s, double sldw_s, double sln_s, double lz_s);

// eq. 9: a process migrated across computers: SL = Σ_k SL_k.
double migrated_response_time(std::span<const double> per_computer_sl_s);

}  // namespace hetperf::unimpp
