// Tests of the star network resource (simulator/src/resources/star_network.cpp): hand-worked cases and
// random traffic against a brute-force fluid simulation of the same model (DPS paper section 4: each
// transfer moves at min(b_src / out(src), b_dst / in(dst)), recomputed at every start and end).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "hetperf/model/distribution.hpp"
#include "hetperf/simulator/resources/star_network.hpp"

using namespace hetperf::sim;

namespace {

struct Send {
  double at_s = 0;
  int src = 0, dst = 0;
  double bytes = 0, latency_s = 0;
};

// Delivery times by the engine's StarNetwork.
std::vector<double> with_engine(const std::vector<double>& bandwidth, const std::vector<Send>& sends) {
  Engine engine;
  std::vector<double> delivered(sends.size(), -1);
  struct Listener final : NetworkListener {
    Engine* engine;
    std::vector<double>* times;
    void delivered(std::uint32_t token) override { (*times)[token] = engine->now().s(); }
  } listener;
  listener.engine = &engine;
  listener.times = &delivered;
  StarNetwork net(engine, listener, bandwidth, false);
  struct Starter final : Handler {
    StarNetwork* net;
    const std::vector<Send>* sends;
    void fire(std::uint64_t k) override {
      const Send& s = (*sends)[k];
      net->send(s.src, s.dst, s.bytes, Duration(s.latency_s), static_cast<std::uint32_t>(k));
    }
  } starter;
  starter.net = &net;
  starter.sends = &sends;
  for (std::size_t k = 0; k < sends.size(); ++k) engine.at(Time(sends[k].at_s), starter, k);
  engine.run();
  return delivered;
}

// The same model by brute force: every rate recomputed from the counts at every change.
std::vector<double> brute_force(const std::vector<double>& bandwidth, const std::vector<Send>& sends) {
  const std::size_t n = sends.size();
  std::vector<double> delivered(n, -1), left(n, 0);
  std::vector<double> stream_at(n);
  for (std::size_t k = 0; k < n; ++k) stream_at[k] = sends[k].at_s + sends[k].latency_s, left[k] = sends[k].bytes;
  std::vector<char> streaming(n, 0), done(n, 0);
  double now = 0;
  for (;;) {
    // Start every transfer whose latency is over; deliver the empty ones.
    for (std::size_t k = 0; k < n; ++k) {
      if (!done[k] && !streaming[k] && stream_at[k] <= now) {
        if (left[k] <= 0)
          done[k] = 1, delivered[k] = stream_at[k];
        else
          streaming[k] = 1;
      }
    }
    std::map<int, int> out, in;
    for (std::size_t k = 0; k < n; ++k) {
      if (streaming[k]) ++out[sends[k].src], ++in[sends[k].dst];
    }
    std::vector<double> rate(n, 0);
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < n; ++k) {
      if (!streaming[k]) {
        if (!done[k]) next = std::min(next, stream_at[k]);
        continue;
      }
      rate[k] = std::min(bandwidth[sends[k].src] / out[sends[k].src], bandwidth[sends[k].dst] / in[sends[k].dst]);
      next = std::min(next, now + left[k] / rate[k]);
    }
    if (std::isinf(next)) break;
    for (std::size_t k = 0; k < n; ++k) {
      if (!streaming[k]) continue;
      left[k] -= rate[k] * (next - now);
      if (left[k] <= 1e-9 * sends[k].bytes) streaming[k] = 0, done[k] = 1, delivered[k] = next;
    }
    now = next;
  }
  return delivered;
}

}  // namespace

TEST_CASE("simulator: star network: a transfer waits its latency, then streams at the slower end's share") {
  // 0 sends 1 MB to 1 and to 2 at once (0's link shared: 0.5 MB/s each); 1 also receives from 3 from
  // t = 0.5 (1's downlink then shared by two).
  std::vector<Send> sends = {{0, 0, 1, 1e6, 0.1}, {0, 0, 2, 1e6, 0.1}, {0.4, 3, 1, 0.25e6, 0.1}};
  auto t = with_engine({1e6, 1e6, 1e6, 1e6}, sends);
  auto ref = brute_force({1e6, 1e6, 1e6, 1e6}, sends);
  for (std::size_t k = 0; k < sends.size(); ++k) CHECK(t[k] == Approx(ref[k]).epsilon(1e-12));
  // By hand: 3 -> 1 streams from 0.5 at 0.5 MB/s (1's downlink has two) and ends at 1.0; the transfer
  // 0 -> 1 had 0.2 MB by 0.5 at 0.5 MB/s, then 0.25 MB at 0.5 MB/s until 1.0, then is alone on 1 but
  // still shares 0's uplink: 0.55 MB left at 0.5 MB/s until 2.1.
  CHECK(t[2] == Approx(1.0));
  CHECK(t[0] == Approx(2.1));
  CHECK(t[1] == Approx(2.1));
}

TEST_CASE("simulator: star network: random traffic among unlike links agrees with a brute-force fluid model") {
  hetperf::Rng rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    const int computers = 2 + trial % 6;
    std::vector<double> bandwidth;
    for (int c = 0; c < computers; ++c) bandwidth.push_back(1e6 * (0.5 + 2 * rng.uniform01()));
    std::vector<Send> sends;
    const int count = 5 + trial * 3;
    for (int k = 0; k < count; ++k) {
      Send s;
      s.at_s = 2 * rng.uniform01();
      s.src = static_cast<int>(rng.uniform01() * computers);
      s.dst = static_cast<int>(rng.uniform01() * computers);
      s.bytes = rng.uniform01() < 0.1 ? 0 : 1e6 * rng.uniform01();
      s.latency_s = 0.05 * rng.uniform01();
      sends.push_back(s);
    }
    auto t = with_engine(bandwidth, sends);
    auto ref = brute_force(bandwidth, sends);
    for (std::size_t k = 0; k < sends.size(); ++k) {
      INFO("trial " << trial << ", transfer " << k);
      CHECK(t[k] == Approx(ref[k]).epsilon(1e-7));
    }
  }
}
