// Tests of the processor resource (simulator/src/resources/processor.cpp) against a brute-force fluid
// simulation of the same rule: n clients on c cores each get speed · min(1, c / n) (UniMPP paper eq. 2,
// DPS paper section 4), or under FIFO at most c run, in arrival order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <vector>

#include "hetperf/model/distribution.hpp"
#include "hetperf/simulator/resources/processor.hpp"

using namespace hetperf::sim;

namespace {

struct Job {
  double at_s = 0, work = 0;
};

std::vector<double> with_engine(const ProcessorSpec& spec, const std::vector<Job>& jobs) {
  Engine engine;
  std::vector<double> done(jobs.size(), -1);
  struct Listener final : ProcessorListener {
    Engine* engine;
    std::vector<double>* done;
    void computed(std::uint32_t token, double) override { (*done)[token] = engine->now().s(); }
  } listener;
  listener.engine = &engine;
  listener.done = &done;
  Processor cpu(engine, listener, spec);
  struct Starter final : Handler {
    Processor* cpu;
    const std::vector<Job>* jobs;
    void fire(std::uint64_t k) override { cpu->start(static_cast<std::uint32_t>(k), (*jobs)[k].work); }
  } starter;
  starter.cpu = &cpu;
  starter.jobs = &jobs;
  for (std::size_t k = 0; k < jobs.size(); ++k) engine.at(Time(jobs[k].at_s), starter, k);
  engine.run();
  return done;
}

std::vector<double> brute_force(const ProcessorSpec& spec, const std::vector<Job>& jobs) {
  const std::size_t n = jobs.size();
  std::vector<double> done(n, -1), left(n);
  std::vector<char> arrived(n, 0), served(n, 0);
  std::deque<std::size_t> waiting;
  for (std::size_t k = 0; k < n; ++k) left[k] = jobs[k].work;
  // Arrivals in time order, ties in index order (as the engine schedules them).
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return jobs[a].at_s < jobs[b].at_s; });
  std::size_t next_arrival = 0;
  double now = 0;
  for (;;) {
    while (next_arrival < n && jobs[order[next_arrival]].at_s <= now) {
      const std::size_t k = order[next_arrival++];
      arrived[k] = 1;
      waiting.push_back(k);
    }
    std::size_t count = 0;
    for (std::size_t k = 0; k < n; ++k) count += served[k];
    while (!waiting.empty() &&
           (spec.discipline == Discipline::kProcessorSharing || count < static_cast<std::size_t>(spec.cores))) {
      served[waiting.front()] = 1, ++count;
      waiting.pop_front();
    }
    const double rate = count ? spec.speed * std::min(1.0, spec.cores / static_cast<double>(count)) : 0;
    double next = next_arrival < n ? jobs[order[next_arrival]].at_s : std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < n; ++k) {
      if (served[k]) next = std::min(next, now + left[k] / rate);
    }
    if (std::isinf(next)) break;
    for (std::size_t k = 0; k < n; ++k) {
      if (!served[k]) continue;
      left[k] -= rate * (next - now);
      if (left[k] <= 1e-9 * std::max(1.0, jobs[k].work)) served[k] = 0, done[k] = next;
    }
    now = next;
  }
  return done;
}

}  // namespace

TEST_CASE("simulator: processor: random arrivals on unlike processors agree with a brute-force fluid model") {
  hetperf::Rng rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    ProcessorSpec spec;
    spec.cores = 1 + trial % 4;
    spec.speed = 100 + 900 * rng.uniform01();
    spec.discipline = trial % 2 ? Discipline::kFifo : Discipline::kProcessorSharing;
    std::vector<Job> jobs;
    for (int k = 0; k < 3 + trial; ++k) jobs.push_back({3 * rng.uniform01(), 500 * rng.uniform01()});
    auto t = with_engine(spec, jobs);
    auto ref = brute_force(spec, jobs);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      INFO("trial " << trial << " (" << to_string(spec.discipline) << ", " << spec.cores << " cores), job " << k);
      CHECK(t[k] == Approx(ref[k]).epsilon(1e-7));
    }
  }
}
