// Tests of the time-sliced cores (simulator/src/resources/sliced_cores.cpp): the worked example of its
// header, resumes off and on the core, a rank leaving mid-run, a brute-force stepping of the same
// rule on random computes, and ranks that compute and meet at barriers in a RankWorld, where slices
// and processor sharing part: 3 ranks on 2 cores take as long a step as 4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "hetperf/simulator/rank_world.hpp"
#include "hetperf/simulator/resources/sliced_cores.hpp"

using namespace hetperf::sim;

namespace {

constexpr double kSlice = 0.004;

// Records when each token's compute or resume completes.
struct Recorder final : SlicedCoresListener {
  Engine* engine = nullptr;
  std::vector<double> computed = std::vector<double>(16, -1), resumed = std::vector<double>(16, -1);
  void sliced_computed(std::uint32_t t) override { computed[t] = engine->now().s(); }
  void sliced_resumed(std::uint32_t t) override { resumed[t] = engine->now().s(); }
};

// Calls `f` at time `t`.
template <typename F>
struct At final : Handler {
  F f;
  explicit At(F fn) : f(fn) {}
  void fire(std::uint64_t) override { f(); }
};

}  // namespace

TEST_CASE("sliced cores: the header's example, three ranks on two cores") {
  Engine engine;
  Recorder r;
  r.engine = &engine;
  SlicedCores cores(engine, r, 2, kSlice);
  for (std::uint32_t t = 0; t < 3; ++t) cores.add(t);
  CHECK(cores.core_of(0) == 0);
  CHECK(cores.core_of(1) == 1);
  CHECK(cores.core_of(2) == 0);
  CHECK(cores.sharing(2) == 2);
  CHECK(cores.sharing(1) == 1);
  for (std::uint32_t t = 0; t < 3; ++t) cores.compute(t, 0.010);
  engine.run();
  CHECK(r.computed[1] == Approx(0.010));  // alone on core 1
  CHECK(r.computed[0] == Approx(0.018));  // slices 0, 2 and half of 4
  CHECK(r.computed[2] == Approx(0.022));  // slices 1, 3 and half of 5
}

TEST_CASE("sliced cores: a resume takes effect when the rank's slice comes") {
  Engine engine;
  Recorder r;
  r.engine = &engine;
  SlicedCores cores(engine, r, 1, kSlice);
  for (std::uint32_t t = 0; t < 3; ++t) cores.add(t);
  cores.resume(0);  // its slice: at once
  CHECK(r.resumed[0] == 0);
  cores.resume(2);
  CHECK(cores.next_on_core_s(1) == Approx(kSlice));
  engine.run();
  CHECK(r.resumed[2] == Approx(2 * kSlice));
  CHECK(r.resumed[1] == -1);
}

TEST_CASE("sliced cores: a rank that leaves gives its slices to the others") {
  Engine engine;
  Recorder r;
  r.engine = &engine;
  SlicedCores cores(engine, r, 1, kSlice);
  cores.add(0);
  cores.add(1);
  cores.compute(0, 0.010);
  cores.compute(1, 0.010);
  auto leave = [&] { cores.leave(1); };
  At<decltype(leave)> at(leave);
  engine.at(Time(0.006), at);
  engine.run();
  // Rank 0 had slice 0 (4 ms) and is alone from 6 ms: 6 ms more.
  CHECK(r.computed[0] == Approx(0.012));
  CHECK(r.computed[1] == -1);  // dropped with it
}

TEST_CASE("sliced cores: computes agree with stepping the turns slice by slice") {
  std::mt19937_64 rng(20261127);
  for (int trial = 0; trial < 200; ++trial) {
    const int n_cores = 1 + static_cast<int>(rng() % 3);
    const int ranks = 1 + static_cast<int>(rng() % 7);
    // Starts and works on a grid of an eighth of a slice, so that stepping by it is exact.
    const double step = kSlice / 8;
    std::vector<double> start(ranks), work(ranks);
    for (int k = 0; k < ranks; ++k) {
      start[k] = step * static_cast<double>(rng() % 40);
      work[k] = step * static_cast<double>(1 + rng() % 60);
    }
    Engine engine;
    Recorder r;
    r.engine = &engine;
    SlicedCores cores(engine, r, n_cores, kSlice);
    for (int k = 0; k < ranks; ++k) cores.add(static_cast<std::uint32_t>(k));
    struct Starter final : Handler {
      SlicedCores* cores;
      const std::vector<double>* work;
      void fire(std::uint64_t k) override { cores->compute(static_cast<std::uint32_t>(k), (*work)[k]); }
    } starter;
    starter.cores = &cores;
    starter.work = &work;
    for (int k = 0; k < ranks; ++k) engine.at(Time(start[k]), starter, static_cast<std::uint64_t>(k));
    engine.run();
    // Brute force: rank k is on core k mod c, turn k / c among that core's ranks; in slice s the core
    // runs the rank whose turn is s mod (its rank count).
    for (int k = 0; k < ranks; ++k) {
      const int on_core = (ranks - 1 - k % n_cores) / n_cores + 1;
      const int turn = k / n_cores;
      double left = work[k], t = start[k];
      while (left > 1e-12) {
        const auto slice = static_cast<std::int64_t>((t + 1e-12) / kSlice);
        if (slice % on_core == turn) left -= step;
        t += step;
      }
      INFO("trial " << trial << ", rank " << k << " of " << ranks << " on " << n_cores << " cores");
      CHECK(r.computed[k] == Approx(t).margin(1e-12));
    }
  }
}

namespace {

// The slice in which each of `ranks` ranks on `n_cores` cores first holds its core.
std::vector<std::int64_t> first_turns(int n_cores, int ranks, std::uint64_t seed) {
  Engine engine;
  Recorder r;
  r.engine = &engine;
  SlicedCores cores(engine, r, n_cores, kSlice, seed);
  for (int k = 0; k < ranks; ++k) cores.add(static_cast<std::uint32_t>(k));
  std::vector<std::int64_t> out;
  for (int k = 0; k < ranks; ++k) {
    out.push_back(std::llround(cores.next_on_core_s(static_cast<std::uint32_t>(k)) / kSlice));
  }
  return out;
}

}  // namespace

TEST_CASE("sliced cores: with a turn-order seed every order of a core's ranks is equally likely") {
  // Without a seed: the order of adding, every core in step (ranks 0 and 1 at once, then 2 and 3).
  CHECK(first_turns(2, 4, 0) == std::vector<std::int64_t>{0, 0, 1, 1});
  CHECK(first_turns(2, 4, 7) == first_turns(2, 4, 7));  // the seed decides
  // Three ranks on one core: each of the 6 orders in about a sixth of 6000 seeds.
  std::map<std::vector<std::int64_t>, int> orders;
  for (std::uint64_t seed = 1; seed <= 6000; ++seed) ++orders[first_turns(1, 3, seed)];
  REQUIRE(orders.size() == 6);
  for (const auto& [order, n] : orders) CHECK(std::abs(n - 1000) < 120);  // > 4 binomial sd (28.9)
  // Four ranks on each of two cores, rank 2i beside rank 2i + 1: in step every pair holds its cores at
  // once; in drawn orders a quarter of the pairs do.
  int together = 0, pairs = 0;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    const auto t = first_turns(2, 8, seed);
    for (int i = 0; i < 4; ++i, ++pairs) together += t[2 * i] == t[2 * i + 1];
  }
  CHECK(std::abs(static_cast<double>(together) / pairs - 0.25) < 0.02);  // sd 0.0048
}

TEST_CASE("sliced cores: with a turn-order seed computes still agree with their turns") {
  // The seeded order only permutes the turns: each rank's compute ends where stepping its own turn ends.
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Engine engine;
    Recorder r;
    r.engine = &engine;
    SlicedCores cores(engine, r, 2, kSlice, seed);
    for (std::uint32_t k = 0; k < 5; ++k) cores.add(k);
    std::vector<std::int64_t> turn(5);
    for (std::uint32_t k = 0; k < 5; ++k) turn[k] = std::llround(cores.next_on_core_s(k) / kSlice);
    for (std::uint32_t k = 0; k < 5; ++k) cores.compute(k, 0.010);
    engine.run();
    for (std::uint32_t k = 0; k < 5; ++k) {
      const std::int64_t n = k % 2 == 0 ? 3 : 2;  // ranks 0, 2, 4 on core 0; 1, 3 on core 1
      // 10 ms = two whole slices and half of a third, in the rank's turns n slices apart.
      INFO("seed " << seed << ", rank " << k);
      CHECK(r.computed[k] == Approx(static_cast<double>(turn[k] + 2 * n) * kSlice + 0.002));
    }
  }
}

namespace {

// Ranks that compute `compute_s` then meet at a barrier, `steps` times; `opened_s` is when the last
// barrier opened (its last rank arrived).
struct BulkSynchronous final : RankListener {
  RankWorld* world = nullptr;
  double compute_s = 0;
  int steps = 0;
  std::vector<int> step;
  std::vector<char> in_barrier;
  double opened_s = 0;

  void next(int rank) {
    for (;;) {
      if (in_barrier[rank]) {  // its compute is done: to the barrier
        in_barrier[rank] = 0;
        if (!world->barrier(rank)) return;
        opened_s = world->now().s();
        continue;
      }
      if (step[rank] == steps) {
        world->rank_done(rank);
        return;
      }
      ++step[rank];
      in_barrier[rank] = 1;
      if (!world->compute(rank, compute_s, false)) return;
    }
  }
  void completed(int rank) override { next(rank); }
};

double bulk_synchronous_period(int ranks, double slice_s) {
  RankPlatform platform;
  RankComputer c;
  c.cores = 2;
  c.wait_cpu_share = 1;
  c.time_slice_s = slice_s;
  platform.computers.push_back(c);
  platform.bandwidth_bytes_per_s = 1e9;
  BulkSynchronous app;
  RankWorld world(platform, app);
  app.world = &world;
  app.compute_s = 0.008;
  app.steps = 5;
  app.step.assign(ranks, 0);
  app.in_barrier.assign(ranks, 0);
  const int a = world.add_app(-1);
  for (int k = 0; k < ranks; ++k) world.add_rank(a, 0);
  for (int k = 0; k < ranks; ++k) app.next(k);
  world.run();
  return app.opened_s / app.steps;
}

}  // namespace

TEST_CASE("rank world: on time-sliced cores, 3 ranks on 2 cores take as long a step as 4") {
  // Processor sharing with polling: 3 ranks get 2/3 of a core each, 4 get 1/2.
  CHECK(bulk_synchronous_period(3, 0) == Approx(0.012));
  CHECK(bulk_synchronous_period(4, 0) == Approx(0.016));
  // Slices of 4 ms: two ranks on one core alternate, so the step is 16 ms in both cases (measured on a
  // 2-core VM with MPICH: 24 ms for both, the extra 8 ms being MPI's barrier messages, not simulated here).
  CHECK(bulk_synchronous_period(3, 0.004) == Approx(0.016));
  CHECK(bulk_synchronous_period(4, 0.004) == Approx(0.016));
  // At most one rank per core, slices change nothing.
  CHECK(bulk_synchronous_period(2, 0.004) == Approx(0.008));
}
