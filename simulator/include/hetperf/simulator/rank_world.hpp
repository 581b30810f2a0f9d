// The ranks of message-passing applications (MPI programs) inside the engine: the world the
// applications' simulated back-end runs them in (the DPS simulator's partial direct execution, DPS paper
// sections 3-4 and 7, and MPI-Sim's abstraction of computation, MPI-Sim paper). A rank's operations take
// simulated time on the shared resources of the computer it is mapped to:
//   compute     the computer's Processor (processor sharing over its cores; BLAS kernels are
//               memory-bound work, slowed by the kernels on the other cores); a rank waiting in MPI
//               polls and takes `wait_cpu_share` of a core meanwhile; each transfer streaming into
//               or out of the computer takes its `cpu_share_per_receive` / `cpu_share_per_send`;
//               with more ranks than cores and a time slice given, the computer's SlicedCores
//               instead (ranks on their own cores taking turns of one slice);
//   messages    the StarNetwork (t = l + s/b, equal sharing per link direction, DPS paper section 4)
//               among pairs of ranks; the messages of one pair follow each other (one connection);
//               a rank blocked in a receive or a rendezvous send on an oversubscribed computer
//               is scheduled in after the computer's hand-off once its operation completes;
//               At most `eager_limit_bytes` a message is eager (the sender goes on at once, the receiver
//               gets it after the transfer); larger, it waits for the matching receive (rendezvous)
//               and holds its sender until all but `send_buffer_bytes` of it have been streamed;
//   disk        the computer's FifoDisk at disk_write_bytes_per_s, then disk_sync_latency_s (the flush,
//               in parallel with other writers' flushes); the writer then resumes as a rank blocked in MPI.
// Only sizes and times are simulated; the applications' own code (apps/sim) decides what to issue.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <memory>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "hetperf/simulator/engine/engine.hpp"
#include "hetperf/simulator/resources/fifo_disk.hpp"
#include "hetperf/simulator/resources/processor.hpp"
#include "hetperf/simulator/resources/sliced_cores.hpp"
#include "hetperf/simulator/resources/star_network.hpp"

namespace hetperf::sim {

struct RankComputer {
  int cores = 1;
  double disk_write_bytes_per_s = 0;  // > 0 when ranks here write to disk
  // What a write takes after its bytes have gone through the disk in turn (its flush, the journal
  // commit); writers wait for it side by side.
  double disk_sync_latency_s = 0;
  // Share of a core taken by a rank waiting in a communication (MPI polls while it waits), also after
  // the rank's work is done until every rank of its launch group is done (the final collectives).
  double wait_cpu_share = 0;
  // Share of the computer's processing capacity taken by each transfer streaming out of (into) it over
  // the network (DPS paper section 4): the operating system's work for the bytes (packets, copies,
  // interrupts) is done on the cores the ranks compute on. In [0, 1]; 0: communication is free. Not
  // applied on time-sliced cores.
  double cpu_share_per_send = 0;
  double cpu_share_per_receive = 0;
  // With twice as many ranks mapped here as cores, how long a rank blocked in MPI (a receive, a
  // rendezvous send) stays off its core once its operation completes: polling like every rank, it
  // must first be scheduled in (handoff_at); meanwhile it takes no share of the cores.
  double oversubscribed_handoff_s = 0;
  // The scheduler's slice as the hand-off meets it (> 0 where measured): a rank scheduled back in after
  // its hand-off keeps its core for the rest of its slice, so a rank that blocks again and is released
  // within it is more likely still on its core (handoff_after).
  double handoff_slice_s = 0;
  // Speed of memory-bound work (BLAS/LAPACK kernels) while all cores compute, relative to one alone.
  double core_efficiency = 1;
  // The same with k ranks computing, k = 1 .. cores (ProcessorSpec::concurrency_speed); empty: the
  // line through core_efficiency.
  std::vector<double> concurrency_speed = {};
  // Seconds a message of `bytes` between two ranks of this computer takes once both sides are ready,
  // with `ranks` ranks mapped here (a model calibrated on the applications' own messages; the hand-off
  // follows on arrival as for any message); empty: the message crosses the star network like any other.
  std::function<double(std::uint64_t bytes, int ranks)> local_message_s = {};

  // The scheduler's time slice (its tick) on this computer, > 0 where measured: with more ranks mapped
  // here than cores, the ranks stay on their cores and take turns of one slice (SlicedCores), which
  // then replaces both processor sharing and the hand-off for this computer.
  double time_slice_s = 0;
  // With time-sliced cores, the order of each core's turns: 0 in the order the ranks were placed, all
  // cores in step; otherwise drawn from this seed (SlicedCores), as a sampled run state.
  std::uint64_t turn_order_seed = 0;
  // The eager limit of messages between two ranks of this computer (its transport may differ from the
  // network's: shared memory, or TCP over loopback); nullopt: the platform's eager_limit_bytes.
  std::optional<std::uint64_t> local_eager_limit_bytes = std::nullopt;

  // The hand-off of a message to a rank here with `mapped` ranks mapped here: none while they do not
  // outnumber the cores; beyond, the wait to be scheduled in times the probability that the receiver
  // is off its core, 1 − cores / mapped, scaled so that twice as many ranks as cores take
  // oversubscribed_handoff_s (where it is calibrated): 2 · h · (1 − cores / mapped).
  double handoff_at(int mapped) const {
    return mapped > cores ? 2 * oversubscribed_handoff_s * (1 - static_cast<double>(cores) / mapped) : 0.0;
  }
  // The same for a rank released `since_s` after it was last scheduled back in: it has been preempted
  // with a chance that grows over its slice, from none as it was scheduled in to handoff_at's at one
  // slice, which holds from then on (no slice known: handoff_at's throughout).
  double handoff_after(int mapped, double since_s) const {
    const double h = handoff_at(mapped);
    return handoff_slice_s > 0 ? h * std::clamp(since_s / handoff_slice_s, 0.0, 1.0) : h;
  }
};

// One protocol regime of the network: messages of at least `min_bytes` (up to the next regime's)
// take t = latency_s + bytes · seconds_per_byte alone on the links.
struct WireRegime {
  std::uint64_t min_bytes = 0;
  double latency_s = 0;  // may be negative beyond the first regime
  double seconds_per_byte = 0;
};

struct RankPlatform {
  std::vector<RankComputer> computers;
  double latency_s = 0;              // l of t = l + s/b
  double bandwidth_bytes_per_s = 0;  // b, per computer link and direction (> 0)
  std::uint64_t eager_limit_bytes = 65536;
  // The calibrated regimes, ascending in min_bytes; empty: l + s/b for every size. A message then
  // takes its regime's line alone; the links' equal sharing applies to it as to any other (its bytes
  // stream at the share of b scaled by the regime's seconds_per_byte · b).
  std::vector<WireRegime> regimes = {};
  // Bytes of a message beyond the eager limit, between two computers, that the buffers on the way hold
  // when its blocking send returns (the socket buffers and the link's queue of TCP): the sender goes
  // on once the rest has been streamed, the receiver when all has arrived. 0: the sender waits for
  // the whole transfer.
  double send_buffer_bytes = 0;
};

class RankListener {
 public:
  // The operation `rank` waits for is done (at the engine's now).
  virtual void completed(int rank) = 0;

 protected:
  ~RankListener() = default;
};

class RankWorld final : public ProcessorListener,
                        public SlicedCoresListener,
                        public NetworkListener,
                        public DiskListener,
                        public Handler {
 public:
  RankWorld(const RankPlatform& platform, RankListener& listener);
  RankWorld(const RankWorld&) = delete;
  RankWorld& operator=(const RankWorld&) = delete;

  // An application (its ranks are added next, numbered from 0 within it); applications of one launch
  // group were started by one launcher: a rank that is done waits, polling, until all are done.
  // `launch_group` < 0: a group of its own.
  int add_app(int launch_group);
  // Adds a rank of application `app` on `computer`; returns its global id. Call after every add_app.
  int add_rank(int app, std::size_t computer);

  Engine& engine() { return engine_; }
  // Whether the ranks of `computer` take turns of its cores (time-sliced cores, RankComputer::time_slice_s).
  bool takes_turns(std::size_t computer) const { return sliced_[computer] != nullptr; }
  Time now() const { return engine_.now(); }

  // The operations. Each returns true when it completed at once; otherwise `completed(rank)` follows.
  // Peers are global rank ids.
  bool compute(int rank, double seconds, bool memory_bound);
  bool send(int rank, int dst, int tag, std::uint64_t bytes);
  // Non-blocking send; `handle` (chosen by the rank, unique among its pending ones) is waited on.
  void isend(int rank, int dst, int tag, std::uint64_t bytes, int handle);
  bool wait(int rank, int handle);
  bool recv(int rank, int src, int tag);
  bool barrier(int rank);  // among the ranks of its application
  bool disk_write(int rank, std::uint64_t bytes);
  // The rank's program is done: it waits for the rest of its launch group.
  void rank_done(int rank);

  // Runs the engine until nothing is left to do.
  void run() { engine_.run(); }
  std::uint64_t events() const { return engine_.events_fired(); }

 private:
  static constexpr std::uint32_t kNoMessage = std::numeric_limits<std::uint32_t>::max();
  struct Message {
    int src = 0, dst = 0, tag = 0;
    std::uint64_t bytes = 0;
    bool eager = false, arrived = false, transferring = false, receiver_waiting = false;
    bool sender_released = false;  // beyond the eager limit: its send has returned
    double buffered = 0;           // bytes of stream left to send once the sender has gone on (send_buffer_bytes)
    int send_handle = -1;          // isend: the sender's handle; -1: a blocking send
    std::uint32_t next_in_stream = kNoMessage;  // the message of its pair of ranks sent after it (streams_)
  };
  struct Rank {
    int app = 0;
    std::size_t computer = 0;
    bool waiting = false;
    // Pending non-blocking sends, (handle, finished); few at a time, so a flat list.
    std::vector<std::pair<int, bool>> handle_done;
    int waiting_handle = -1;
    // When it was last scheduled back in after a hand-off (-inf: never).
    double scheduled_in_s = -std::numeric_limits<double>::infinity();
  };
  struct App {
    int group = 0;
    std::vector<int> ranks;
    std::vector<int> barrier_waiting;
  };
  struct LaunchGroup {
    std::vector<int> ranks;
    int done = 0;
  };

  void computed(std::uint32_t token, double slowdown_work) override;
  void sliced_computed(std::uint32_t token) override;
  void sliced_resumed(std::uint32_t token) override { complete(static_cast<int>(token)); }
  // The computer's time-sliced cores once it holds more ranks than cores (RankComputer::time_slice_s),
  // else null.
  SlicedCores* sliced(std::size_t computer) { return sliced_[computer].get(); }
  void maybe_slice(std::size_t computer);
  double memory_bound_speed(std::size_t computer, int busy) const;
  void delivered(std::uint32_t token) override;
  void link_load_changed(std::size_t computer) override;
  void served(std::uint32_t token) override;
  // A local message's time is up, (kHandedOff | rank) a receiver is scheduled in again, (kDeferredStart |
  // message) a rendezvous may start, or (kSynced | rank) a disk write's flush is done.
  void fire(std::uint64_t message) override;
  static constexpr std::uint64_t kHandedOff = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kDeferredStart = std::uint64_t{1} << 62;  // | message: its rendezvous starts
  static constexpr std::uint64_t kSynced = std::uint64_t{1} << 61;         // | rank: its disk write is flushed

  void complete(int rank);
  // A blocked rank's operation is done: complete, after its hand-off; a rendezvous sender's after the
  // longer of its own and its receiver's (`answered_by`, who had to be on a core to answer).
  void resume(int rank, int answered_by = -1);
  std::uint64_t eager_limit(int src, int dst) const;  // of a message between these ranks' computers
  double handoff_of(int rank) const;                  // handoff_after of its computer, since it was last scheduled in
  void set_waiting(int rank, bool waiting);
  std::uint32_t new_message();
  bool post_send(int rank, int dst, int tag, std::uint64_t bytes, int handle);
  // Starts moving `message`; true when its sender may go on at once (all of it fits the buffers).
  // Between computers it streams behind the earlier messages of its pair of ranks (streams_).
  bool start_transfer(std::uint32_t message);
  // streams_'s key of a message's pair of ranks: source << 32 | destination.
  static std::uint64_t pair_key(const Message& m) {
    return static_cast<std::uint64_t>(m.src) << 32 | static_cast<std::uint32_t>(m.dst);
  }
  bool stream(std::uint32_t message);       // puts a message between computers on the network
  void stream_done(std::uint32_t message);  // its pair's next message, if any, streams
  void release_sender(const Message& m);    // its blocking send returns, or its isend's handle is done
  void arrive(std::uint32_t message);
  static std::vector<std::pair<int, bool>>::iterator find_handle(Rank& r, int handle);

  const RankPlatform& platform_;
  RankListener& listener_;
  Engine engine_;
  std::deque<Processor> processors_;  // a deque: they never move (the engine holds pointers to them)
  std::deque<FifoDisk> disks_;
  std::vector<std::unique_ptr<SlicedCores>> sliced_;
  std::vector<bool> served_any_;  // per computer: an operation has run there (it can no longer switch to slices)
  std::vector<int> computing_;    // per computer: ranks computing on sliced cores
  std::unique_ptr<StarNetwork> network_;
  std::vector<Rank> ranks_;
  std::vector<App> apps_;
  std::vector<LaunchGroup> groups_;
  std::map<int, int> group_index_;  // launch group id -> index in groups_
  std::vector<int> waiting_;        // waiting ranks per computer
  std::vector<int> mapped_;         // ranks per computer
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  // Per destination rank: unreceived messages in send order, matched by (source, tag) from the
  // oldest, as MPI implementations keep their unexpected-message queue (flat lists: a rank has few
  // messages outstanding, and a list beats a map of deques at that size).
  std::vector<std::vector<std::uint32_t>> inbox_;
  std::vector<std::vector<std::pair<int, int>>> posted_;  // per destination rank: (source, tag) waiting
  // Per ordered pair of ranks on two computers (source << 32 | destination), the messages on their way:
  // the oldest streams, the others wait for it in send order. One connection carries a pair's
  // messages (TCP under MPI), so they follow each other rather than share the link as different
  // pairs' connections do: with equal sharing, LU's last panel left behind four 1 MiB blocks of the
  // gather that followed it took 50 ms to cross the testbed's link instead of the 10 ms it took.
  // The map holds each pair's last message (the others linked by next_in_stream). Open addressing
  // (Abseil's Swiss table): std::unordered_map's node allocated and freed per message was half of
  // what the pairs' order cost in instructions (LU on 1,024 ranks, callgrind).
  absl::flat_hash_map<std::uint64_t, std::uint32_t> streams_;
};

}  // namespace hetperf::sim
