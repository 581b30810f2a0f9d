// Simulated back-end: the ranks' coroutines inside one discrete-event simulation (see sim_runtime.hpp).
#include "sim_runtime.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <memory>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/event_queue.hpp"

namespace hetperf::apps {
namespace {

using sim::EventQueue;

enum EventKind : std::uint32_t { kComputeDone, kLatencyDone, kNetworkDone, kDiskDone };

class World;

class SimRank final : public Runtime {
 public:
  SimRank(World& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override;
  bool holds_data() const override { return false; }
  double now() const override;

  // Ends the operation the rank waits for, records it and resumes the rank's coroutine.
  void complete(double t) {
    pending_.end_s = t;
    trace_.push_back(pending_);
    auto h = std::exchange(parked_, {});
    HETPERF_CHECK(h, "completing an operation nobody waits for");
    h.resume();
  }
  void record_immediate(double t) {
    pending_.end_s = t;
    trace_.push_back(pending_);
  }
  std::vector<TraceEvent>& events() { return trace_; }

 protected:
  bool start(const Request& r, TraceEvent& event) override;
  void park(std::coroutine_handle<> h) override { parked_ = h; }

 private:
  World& world_;
  int rank_;
  TraceEvent pending_;
  std::coroutine_handle<> parked_;
};

struct Message {
  int src = 0, tag = 0;
  std::uint64_t bytes = 0;
  bool eager = false;
  bool matched = false, arrived = false, transferring = false;
  int receiver = -1;  // rank waiting in recv, once matched
};

struct Transfer {
  std::size_t from = 0, to = 0;  // computers
  double remaining_bytes = 0;
  bool flowing = false;          // past its latency
  std::shared_ptr<Message> message;
  double rate = 0;
};

struct ComputeOp {
  int rank = 0;
  double remaining_s = 0;  // at full speed on one core
};

class World {
 public:
  World(const SimPlatform& p, const std::vector<std::size_t>& mapping) : p_(p), mapping_(mapping) {
    for (std::size_t c : mapping) HETPERF_CHECK(c < p.computers.size(), "rank mapped to an unknown computer");
    compute_.resize(p.computers.size());
    compute_stamp_.resize(p.computers.size(), 0);
    compute_last_.resize(p.computers.size(), 0);
    disk_free_at_.resize(p.computers.size(), 0);
    inbox_.resize(mapping.size());
    posted_.resize(mapping.size());
    for (int r = 0; r < static_cast<int>(mapping.size()); ++r) ranks_.push_back(std::make_unique<SimRank>(*this, r));
  }

  double now() const { return now_; }
  int size() const { return static_cast<int>(ranks_.size()); }

  SimRunResult run(const std::function<Task(Runtime&)>& app) {
    std::vector<Task> tasks;
    for (auto& r : ranks_) tasks.push_back(app(*r));
    for (auto& t : tasks) t.resume();
    while (!queue_.empty()) {
      sim::Event e = queue_.pop();
      now_ = e.time;
      ++events_;
      switch (e.kind) {
        case kComputeDone:
          if (e.b == compute_stamp_[e.a]) compute_done(e.a);
          break;
        case kLatencyDone:
          advance_network();
          transfers_[e.a].flowing = true;
          reschedule_network();
          break;
        case kNetworkDone:
          if (e.b == network_stamp_) network_done();
          break;
        case kDiskDone: ranks_[e.a]->complete(now_); break;
      }
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      tasks[i].rethrow_if_failed();
      HETPERF_CHECK(tasks[i].done(), "rank " + std::to_string(i) + " is blocked at the end of the simulation (deadlock)");
    }
    SimRunResult out;
    out.makespan_s = now_;
    out.simulation_events = events_;
    for (auto& r : ranks_) {
      for (auto& e : r->events()) out.events.push_back(e);
    }
    return out;
  }

  // Returns true when the operation completed at once.
  bool start(int rank, const Runtime::Request& r);

 private:
  using Op = Runtime::Op;
  friend class SimRank;

  // Work left over by rounding is done: what a step of the clock at `now_` cannot resolve (a fixed
  // tolerance would loop for ever once now_ + remaining == now_).
  double tolerance_s() const { return 1e-12 + 1e-12 * now_; }

  // --- compute: processor sharing per computer ---
  void advance_compute(std::size_t c) {
    double dt = now_ - compute_last_[c];
    compute_last_[c] = now_;
    auto& ops = compute_[c];
    if (dt <= 0 || ops.empty()) return;
    double rate = std::min(1.0, p_.computers[c].cores / static_cast<double>(ops.size()));
    for (auto& op : ops) op.remaining_s -= rate * dt;
  }
  void reschedule_compute(std::size_t c) {
    auto& ops = compute_[c];
    ++compute_stamp_[c];
    if (ops.empty()) return;
    double rate = std::min(1.0, p_.computers[c].cores / static_cast<double>(ops.size()));
    double next = std::numeric_limits<double>::infinity();
    for (auto& op : ops) next = std::min(next, std::max(0.0, op.remaining_s) / rate);
    queue_.schedule(now_ + next, kComputeDone, static_cast<std::uint32_t>(c), compute_stamp_[c]);
  }
  void start_compute(int rank, double seconds) {
    std::size_t c = mapping_[rank];
    advance_compute(c);
    compute_[c].push_back({rank, seconds});
    reschedule_compute(c);
  }
  void compute_done(std::size_t c) {
    advance_compute(c);
    auto& ops = compute_[c];
    std::vector<int> done;
    for (auto it = ops.begin(); it != ops.end();) {
      if (it->remaining_s <= tolerance_s()) {
        done.push_back(it->rank);
        it = ops.erase(it);
      } else {
        ++it;
      }
    }
    reschedule_compute(c);
    for (int r : done) ranks_[r]->complete(now_);
  }

  // --- network: star topology, equal sharing of each computer's outgoing and incoming bandwidth ---
  void advance_network() {
    double dt = now_ - network_last_;
    network_last_ = now_;
    if (dt <= 0) return;
    for (auto& [id, t] : transfers_) {
      if (t.flowing) t.remaining_bytes -= t.rate * dt;
    }
  }
  void reschedule_network() {
    ++network_stamp_;
    std::vector<int> out(p_.computers.size(), 0), in(p_.computers.size(), 0);
    for (auto& [id, t] : transfers_) {
      if (t.flowing) ++out[t.from], ++in[t.to];
    }
    double next = std::numeric_limits<double>::infinity();
    for (auto& [id, t] : transfers_) {
      if (!t.flowing) continue;
      t.rate = std::min(p_.bandwidth_bytes_per_s / out[t.from], p_.bandwidth_bytes_per_s / in[t.to]);
      next = std::min(next, std::max(0.0, t.remaining_bytes) / t.rate);
    }
    if (next < std::numeric_limits<double>::infinity()) queue_.schedule(now_ + next, kNetworkDone, 0, network_stamp_);
  }
  void start_transfer(const std::shared_ptr<Message>& m, int dst) {
    advance_network();
    std::uint32_t id = next_transfer_++;
    m->transferring = true;
    transfers_[id] = Transfer{mapping_[m->src], mapping_[dst], static_cast<double>(m->bytes), false, m, 0};
    queue_.schedule(now_ + p_.latency_s, kLatencyDone, id);
  }
  void network_done() {
    advance_network();
    std::vector<std::shared_ptr<Message>> finished;
    std::vector<int> senders;
    for (auto it = transfers_.begin(); it != transfers_.end();) {
      if (it->second.flowing && it->second.remaining_bytes <= it->second.rate * tolerance_s()) {
        finished.push_back(it->second.message);
        it = transfers_.erase(it);
      } else {
        ++it;
      }
    }
    reschedule_network();
    for (auto& m : finished) {
      m->arrived = true;
      m->transferring = false;
      if (!m->eager) ranks_[m->src]->complete(now_);         // rendezvous: the sender was waiting
      if (m->receiver >= 0) ranks_[m->receiver]->complete(now_);
    }
  }

  const SimPlatform& p_;
  std::vector<std::size_t> mapping_;
  std::vector<std::unique_ptr<SimRank>> ranks_;
  EventQueue queue_;
  double now_ = 0;
  std::uint64_t events_ = 0;
  std::vector<std::vector<ComputeOp>> compute_;
  std::vector<std::uint64_t> compute_stamp_;
  std::vector<double> compute_last_;
  std::vector<double> disk_free_at_;
  std::map<std::uint32_t, Transfer> transfers_;  // ordered by id: deterministic iteration
  std::uint32_t next_transfer_ = 0;
  std::uint64_t network_stamp_ = 0;
  double network_last_ = 0;
  std::vector<std::deque<std::shared_ptr<Message>>> inbox_;  // per destination rank, in send order
  std::vector<std::deque<std::pair<int, int>>> posted_;      // per destination rank: (src, tag) waiting
  int barrier_count_ = 0;
  std::vector<int> barrier_waiting_;
};

int SimRank::size() const { return world_.size(); }
double SimRank::now() const { return world_.now(); }
bool SimRank::start(const Request& r, TraceEvent& event) {
  pending_ = event;
  return world_.start(rank_, r);
}

bool World::start(int rank, const Runtime::Request& r) {
  const std::size_t c = mapping_[rank];
  switch (r.op) {
    case Op::kSend: {
      auto m = std::make_shared<Message>();
      m->src = rank, m->tag = r.tag, m->bytes = r.bytes, m->eager = r.bytes <= p_.eager_limit_bytes;
      // Match the oldest receive posted for this source and tag.
      auto& posted = posted_[r.peer];
      auto it = std::find(posted.begin(), posted.end(), std::make_pair(rank, r.tag));
      if (it != posted.end()) {
        posted.erase(it);
        m->matched = true;
        m->receiver = r.peer;
        start_transfer(m, r.peer);
      } else {
        inbox_[r.peer].push_back(m);
        if (m->eager) start_transfer(m, r.peer);
      }
      if (m->eager) {
        ranks_[rank]->record_immediate(now_);
        return true;
      }
      return false;  // rendezvous: done when the transfer ends
    }
    case Op::kRecv: {
      auto& inbox = inbox_[rank];
      auto it = std::find_if(inbox.begin(), inbox.end(), [&](const auto& m) { return m->src == r.peer && m->tag == r.tag; });
      if (it == inbox.end()) {
        posted_[rank].emplace_back(r.peer, r.tag);
        return false;
      }
      std::shared_ptr<Message> m = *it;
      inbox.erase(it);
      m->matched = true;
      if (m->arrived) {
        ranks_[rank]->record_immediate(now_);
        return true;
      }
      m->receiver = rank;
      if (!m->transferring) start_transfer(m, rank);  // rendezvous: the sender has been waiting
      return false;
    }
    case Op::kBarrier: {
      barrier_waiting_.push_back(rank);
      if (++barrier_count_ < size()) return false;
      barrier_count_ = 0;
      std::vector<int> waiting;
      waiting.swap(barrier_waiting_);
      for (int w : waiting) {
        if (w != rank) ranks_[w]->complete(now_);
      }
      ranks_[rank]->record_immediate(now_);
      return true;
    }
    case Op::kDiskWrite: {
      double begin = std::max(now_, disk_free_at_[c]);
      disk_free_at_[c] = begin + static_cast<double>(r.bytes) / p_.computers[c].disk_write_bytes_per_s;
      queue_.schedule(disk_free_at_[c], kDiskDone, static_cast<std::uint32_t>(rank));
      return false;
    }
    default: break;
  }
  KernelCall call;
  switch (r.op) {
    case Op::kGetrf: call.kernel = "getrf"; break;
    case Op::kLaswp: call.kernel = "laswp"; break;
    case Op::kTrsm: call.kernel = "trsm"; break;
    case Op::kGemm: call.kernel = "gemm"; break;
    default: call.kernel = "integrate"; break;
  }
  call.m = r.m, call.n = r.n, call.k = r.op == Op::kLaswp ? r.k2 - r.k1 + 1 : r.k, call.steps = r.steps;
  start_compute(rank, std::max(0.0, p_.kernel_time(call, c)));
  return false;
}

}  // namespace

SimRunResult simulate_app(const SimPlatform& platform, const std::vector<std::size_t>& mapping,
                          const std::function<Task(Runtime&)>& app) {
  World world(platform, mapping);
  return world.run(app);
}

}  // namespace hetperf::apps
