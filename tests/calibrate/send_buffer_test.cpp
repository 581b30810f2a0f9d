// Tests of the network's send buffer fitted on sends across hosts (calibrate/src/send_buffer.cpp).
#include <catch2/catch.hpp>

#include "hetperf/calibrate/send_buffer.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

TEST_CASE("calibrate: the Kaplan-Meier quantile of right-censored values") {
  // Uncensored: the ordinary quantile by the empirical distribution.
  CHECK(*kaplan_meier_quantile({5, 1, 4, 2, 3}, {false, false, false, false, false}, 0.5) == 3);
  // 1 and 3 are lower bounds: after 1 leaves, 2 takes 1/4 of the mass (F = 0.25); 3 leaves; 4 takes
  // half of what remains (F = 0.625).
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const std::vector<bool> c = {true, false, true, false, false};
  CHECK(*kaplan_meier_quantile(v, c, 0.25) == 2);
  CHECK(*kaplan_meier_quantile(v, c, 0.5) == 4);
  // Censored above every uncensored value: the upper quantiles are unknown.
  CHECK_FALSE(kaplan_meier_quantile({1, 2, 3, 4}, {false, true, true, true}, 0.5).has_value());
}

TEST_CASE("calibrate: the send buffer is recovered from sends that return once the rest fits it") {
  // One regime: 0.4 ms + s · 8.4e-8 s (95 Mbit/s); a 1 MB buffer. Sends of 128 KiB to 2 MiB after a
  // computation take l + max(0, s − B)·g, ±1%; those after another send, and four whose receiver was
  // late, took the whole line and more.
  NetworkModel net;
  net.latency_s = 4e-4;
  net.bandwidth_bytes_per_s = 1 / 8.4e-8;
  net.regimes = {{0, 4e-4, 8.4e-8}};
  const double buffer = 1e6;
  std::vector<NetworkSend> sends;
  for (int rep = 0; rep < 2; ++rep) {
    for (std::uint64_t s = 131072; s <= 2097152; s += 131072) {
      const double streamed = std::max(0.0, static_cast<double>(s) - buffer) * 8.4e-8;
      sends.push_back({s, 4e-4 + streamed * (1 + 0.01 * (rep ? 1 : -1)), false, "t.json"});
      sends.push_back({s, 4e-4 + static_cast<double>(s) * 8.4e-8, true, "t.json"});
    }
  }
  for (int i = 0; i < 4; ++i) sends.push_back({2097152, 0.3, false, "t.json"});
  std::vector<std::string> report;
  const auto b = fit_send_buffer(sends, net, report);
  REQUIRE(b.has_value());
  CHECK(b->bytes == Approx(buffer).epsilon(0.02));
  CHECK(b->fit["sends"] == 36);
  CHECK(b->fit["left_out_after_a_send"] == 32);
  // The seven sizes up to 1 MB, and 1 MiB: it streamed 4 ms of its 88 ms line, within 5%: B >= s.
  CHECK(b->fit["returned_at_once"] == 16);
  CHECK(b->fit["lower_bound"] == false);
  REQUIRE(report.size() == 1);
  CHECK_THAT(report[0], Catch::Contains("network send buffer: 0.998 MB") && Catch::Contains("36 sends"));
}

TEST_CASE("calibrate: too few sends across hosts leave the network without a send buffer, saying why") {
  NetworkModel net;
  net.latency_s = 4e-4;
  net.bandwidth_bytes_per_s = 1e7;
  std::vector<NetworkSend> sends(5, NetworkSend{1000000, 0.05, false, "t.json"});
  std::vector<std::string> report;
  CHECK_FALSE(fit_send_buffer(sends, net, report).has_value());
  REQUIRE(report.size() == 1);
  CHECK_THAT(report[0], Catch::Contains("too few"));
  // No network measured: nothing to fit against, nothing said.
  report.clear();
  CHECK_FALSE(fit_send_buffer(sends, NetworkModel{}, report).has_value());
  CHECK(report.empty());
}
