// UniMPP equations (UniMPP paper eq. 2-9). Each function cites its equation.
#include "hetperf/model/unimpp.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hetperf/model/error.hpp"

namespace hetperf::unimpp {

double SlowdownFunction::alpha(double occupied_mb) const {
  const double linear = main.a_per_mb * occupied_mb + main.b;  // Table 2, linear
  if (occupied_mb <= main_memory_mb) return std::max(0.0, linear);
  if (!virtual_table.empty()) {  // the measured delay function (UniMPP paper section 2)
    SlowdownPoint from{main_memory_mb, std::max(0.0, main.a_per_mb * main_memory_mb + main.b)};
    for (const SlowdownPoint& to : virtual_table) {
      if (occupied_mb <= to.occupied_mb) {
        const double f = (occupied_mb - from.occupied_mb) / (to.occupied_mb - from.occupied_mb);
        return std::max(0.0, from.alpha + f * (to.alpha - from.alpha));
      }
      from = to;
    }
    const SlowdownPoint knee{main_memory_mb, std::max(0.0, main.a_per_mb * main_memory_mb + main.b)};
    const SlowdownPoint& last = virtual_table.back();
    const double slope = (last.alpha - knee.alpha) / (last.occupied_mb - knee.occupied_mb);
    return std::max(0.0, last.alpha + slope * (occupied_mb - last.occupied_mb));
  }
  if (virtual_memory)
    return std::max(0.0, virtual_memory->c * std::exp(virtual_memory->d_per_mb * occupied_mb));  // Table 2, exponential
  return std::max(0.0, linear);
}

std::string SlowdownFunction::form() const {
  if (!virtual_table.empty()) return "linear + measured table (" + std::to_string(virtual_table.size()) + " points)";
  return virtual_memory ? "linear + exponential" : "linear";
}

double te(double mp_mi, double pc_mips) {  // eq. 2
  HETPERF_CHECK(pc_mips > 0, "processing capacity must be positive");
  return mp_mi / pc_mips;
}

double tem(double te_s, double alpha) { return te_s * (1 + alpha); }  // eq. 3

double disk_delay(std::span<const DiskAccess> accesses, double throughput_bytes_per_s) {  // eq. 4, 5
  HETPERF_CHECK(throughput_bytes_per_s > 0, "disk throughput must be positive");
  double total = 0;
  for (const DiskAccess& a : accesses) total += a.bytes / throughput_bytes_per_s + a.wait_s;
  return total;
}

double theta(double overhead_s, double latency_s) { return 2 * overhead_s + latency_s; }  // eq. 7

double message_time(double lo_s, double size_bytes, double bandwidth_bytes_per_s) {
  HETPERF_CHECK(bandwidth_bytes_per_s > 0, "bandwidth must be positive");
  return lo_s + size_bytes / bandwidth_bytes_per_s;  // eq. 7 plus the DPS size term s/b
}

double network_delay(std::span<const MessageCost> messages) {  // eq. 6
  double total = 0;
  for (const MessageCost& m : messages) total += m.theta_s + m.wait_s;
  return total;
}

double response_time(double tem_s, double sldr_s, double sldw_s, double sln_s, double lz_s) {  // eq. 8
  return tem_s + sldr_s + sldw_s + sln_s + lz_s;
}

double migrated_response_time(std::span<const double> per_computer_sl_s) {  // eq. 9
  return std::accumulate(per_computer_sl_s.begin(), per_computer_sl_s.end(), 0.0);
}

}  // namespace hetperf::unimpp
