// The cores of a computer with more ranks than cores, as the operating system's scheduler shares
// them among ranks that never sleep (MPI ranks poll while they wait): each rank stays on one core,
// and the ranks of a core take turns of one time slice each, all cores switching on the same global
// grid of slices (the scheduler tick). A rank progresses only during its own slices; an operation
// of a rank that completes while the rank is off its core (a message arrives, a barrier opens)
// takes effect when its next slice begins.
//
// Why not processor sharing: with slices of a few milliseconds, comparable to the steps of the
// applications, a rank that shares a core is off it for whole slices, and ranks that share no core
// run at full speed; processor sharing gives every rank the same fraction of a core at every instant.
// On a 2-core computer, 3 and 4 polling ranks that compute 8 ms between barriers both take about
// 24 ms a step (the pair on one core alternates slices), where processor sharing says 12 and 16 ms.
//
//     SlicedCores cores(engine, listener, /*cores=*/2, /*slice_s=*/0.004);
//     cores.add(0); cores.add(1); cores.add(2);   // core 0: ranks 0 and 2; core 1: rank 1
//     cores.compute(2, 0.010);                      // rank 2 runs in slices 1, 3, 5, ...: done at 0.022 s
//
// Placement is round robin over the cores in the order ranks are added. A core's ranks take their
// turns in the order they were added, every core in step (rank 0 beside rank 1, rank 2 beside rank 3),
// unless a turn-order seed is given: then each core's turns are in an order drawn from it, as a real
// scheduler's are, whose cores run their queues with no relation between them. That matters where
// ranks of different cores hand messages to each other: in step, a master and its worker on the other
// core are on at once and never wait for each other's slice; in a drawn order each hand-off waits
// for the receiver's turn. Every slice is the same length; a rank alone on its core never leaves it.
// Rates are fixed per operation: work is given in seconds of the core already slowed as the caller
// sees fit.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hetperf/model/distribution.hpp"
#include "hetperf/simulator/engine/engine.hpp"

namespace hetperf::sim {

class SlicedCoresListener {
 public:
  virtual void sliced_computed(std::uint32_t token) = 0;  // its compute is done
  virtual void sliced_resumed(std::uint32_t token) = 0;   // back on its core after resume()

 protected:
  ~SlicedCoresListener() = default;
};

class SlicedCores final : public Handler {
 public:
  // The slices a profile may give (schedulers' ticks are 1-10 ms).
  static constexpr double kMinSliceS = 1e-5, kMaxSliceS = 1;
  // turn_order_seed 0: each core's ranks take turns in the order they were added; otherwise in an
  // order drawn from the seed (each new rank takes a uniformly drawn place among its core's turns).
  SlicedCores(Engine& engine, SlicedCoresListener& listener, int cores, double slice_s,
              std::uint64_t turn_order_seed = 0);
  SlicedCores(const SlicedCores&) = delete;
  SlicedCores& operator=(const SlicedCores&) = delete;

  // Places `token` on the next core, round robin.
  void add(std::uint32_t token);
  // Takes `token` out of its core's turns (it has exited); its pending operation, if any, is dropped.
  void leave(std::uint32_t token);
  // `seconds` of its core's time; sliced_computed(token) follows.
  void compute(std::uint32_t token, double seconds);
  // An operation `token` waited for is done: sliced_resumed(token) now if it is on its core, else when
  // its next slice begins.
  void resume(std::uint32_t token);
  bool on_core(std::uint32_t token) const;
  double next_on_core_s(std::uint32_t token) const;  // now when on its core, else its next slice's start
  int core_of(std::uint32_t token) const;
  std::size_t sharing(std::uint32_t token) const;  // ranks on its core, itself included

  void fire(std::uint64_t key) override;

 private:
  enum class Pending : std::uint8_t { kNone, kCompute, kResume };
  struct Member {
    int core = 0;
    std::int64_t index = 0;  // its turn among its core's ranks
    Pending pending = Pending::kNone;
    double remaining_s = 0;  // of a compute, as of `since`
    double since_s = 0;
    EventId event;
  };
  std::int64_t slot_at(double t) const;                    // the global slice holding t
  std::int64_t turns_at(const Member& m, double t) const;  // ranks taking turns on its core, as resolved at t
  std::int64_t next_own_slot(const Member& m, double t) const;
  double cpu_before(const Member& m, double t) const;  // the member's core time in [0, t)
  double finish(const Member& m, double t, double work_s) const;
  void schedule(std::uint32_t token, Member& m);

  Engine& engine_;
  SlicedCoresListener& listener_;
  double slice_s_;
  std::vector<std::vector<std::uint32_t>> turns_;  // per core: its ranks, in turn order
  std::unordered_map<std::uint32_t, Member> members_;
  int next_core_ = 0;
  std::optional<Rng> turn_order_;  // draws each new rank's place among its core's turns
};

}  // namespace hetperf::sim
