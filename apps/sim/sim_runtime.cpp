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

enum EventKind : std::uint32_t { kStart, kComputeDone, kLatencyDone, kNetworkDone, kDiskDone };

class World;

// One rank of one application. Its runtime numbers ranks within the application; the world numbers
// every rank of every application (the global id).
class SimRank final : public Runtime {
 public:
  SimRank(World& world, int id, int app, int offset, int rank, int size)
      : world_(world), id_(id), app_(app), offset_(offset), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool holds_data() const override { return false; }
  double now() const override;
  int app() const { return app_; }
  int global(int rank) const { return offset_ + rank; }

  // Ends the operation the rank waits for, records it and resumes the rank's coroutine.
  void complete(double t);
  void finish_complete(double t) {
    pending_.end_s = t;
    record(pending_);
    auto h = std::exchange(parked_, {});
    HETPERF_CHECK(h, "completing an operation nobody waits for");
    h.resume();
  }

  // Non-blocking sends of this rank: finished or not, and whether the rank waits for one.
  std::map<int, bool> handle_done;
  int waiting_handle = -1;
  bool waiting = false;  // in a communication, or done and waiting for its launch group

 protected:
  bool start(const Request& r, TraceEvent& event) override;
  void park(std::coroutine_handle<> h) override { parked_ = h; }
  void record(const TraceEvent& event) override;

 private:
  World& world_;
  int id_, app_, offset_, rank_, size_;
  TraceEvent pending_;
  std::coroutine_handle<> parked_;
};

struct Message {
  int src = 0, dst = 0;  // global rank ids
  int tag = 0;
  std::uint64_t bytes = 0;
  bool eager = false;
  bool arrived = false, transferring = false;
  bool receiver_waiting = false;
  int send_handle = -1;  // isend: the sender's handle; -1: a blocking send
};

struct Transfer {
  std::size_t from = 0, to = 0;  // computers
  double remaining_bytes = 0;
  std::shared_ptr<Message> message;
  double rate = 0;
};

struct ComputeOp {
  int rank = 0;            // global id
  double remaining_s = 0;  // at full speed on one core
  bool memory_bound = false;  // a BLAS/LAPACK kernel (slowed by kernels on the other cores)
};

// Per application: its ranks, barrier state and what the run produced.
struct AppState {
  const SimApp* spec = nullptr;
  int offset = 0, size = 0;
  int barrier_count = 0;
  std::vector<int> barrier_waiting;
  SimAppResult result;
  std::vector<int> members;  // ranks counted in each iteration so far
  int group = 0;             // launch group index
};

// Ranks started by one launcher: the done ones wait (polling) until all are done.
struct LaunchGroup {
  std::vector<int> ranks;  // global ids
  int done = 0;
};

class World {
 public:
  World(const SimPlatform& p, const std::vector<SimApp>& apps, const SimOptions& options) : p_(p), options_(options) {
    const std::size_t computers = p.computers.size();
    compute_.resize(computers);
    compute_stamp_.resize(computers, 0);
    compute_last_.resize(computers, 0);
    disk_free_at_.resize(computers, 0);
    waiting_.resize(computers, 0);
    out_.resize(computers, 0);
    in_.resize(computers, 0);
    for (std::size_t a = 0; a < apps.size(); ++a) {
      const SimApp& app = apps[a];
      HETPERF_CHECK(!app.mapping.empty(), "application " + app.name + " has no ranks");
      AppState s;
      s.spec = &app;
      s.offset = static_cast<int>(ranks_.size());
      s.size = static_cast<int>(app.mapping.size());
      s.result.name = app.name;
      s.result.start_s = app.start_s;
      auto [g, fresh] = group_index_.try_emplace(app.launch_group < 0 ? -1 - static_cast<int>(a) : app.launch_group,
                                                 static_cast<int>(groups_.size()));
      if (fresh) groups_.emplace_back();
      s.group = g->second;
      for (int r = 0; r < s.size; ++r) {
        groups_[s.group].ranks.push_back(s.offset + r);
        HETPERF_CHECK(app.mapping[r] < computers, "rank mapped to an unknown computer");
        mapping_.push_back(app.mapping[r]);
        ranks_.push_back(std::make_unique<SimRank>(*this, s.offset + r, static_cast<int>(a), s.offset, r, s.size));
        last_iteration_.push_back(-1);
      }
      apps_.push_back(std::move(s));
    }
    inbox_.resize(ranks_.size());
    posted_.resize(ranks_.size());
    std::vector<int> mapped(computers, 0);
    for (std::size_t c : mapping_) ++mapped[c];
    for (std::size_t c = 0; c < computers; ++c) {
      handoff_s_.push_back(mapped[c] > p.computers[c].cores ? p.computers[c].oversubscribed_handoff_s : 0);
    }
  }

  double now() const { return now_; }

  SimRunResult run() {
    std::vector<Task> tasks;
    for (auto& r : ranks_) tasks.push_back(run_rank(*r));
    for (std::size_t a = 0; a < apps_.size(); ++a) {
      queue_.schedule(apps_[a].spec->start_s, kStart, static_cast<std::uint32_t>(a));
    }
    while (!queue_.empty()) {
      sim::Event e = queue_.pop();
      now_ = e.time;
      ++events_;
      switch (e.kind) {
        case kStart: {
          const AppState& s = apps_[e.a];
          for (int r = s.offset; r < s.offset + s.size; ++r) tasks[r].resume();
          break;
        }
        case kComputeDone:
          if (e.b == compute_stamp_[e.a]) compute_done(e.a);
          break;
        case kLatencyDone: latency_done(e.a); break;
        case kNetworkDone:
          if (e.b == network_stamp_) network_done();
          break;
        case kDiskDone: ranks_[e.a]->complete(now_); break;
      }
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      tasks[i].rethrow_if_failed();
      const AppState& s = apps_[ranks_[i]->app()];
      HETPERF_CHECK(tasks[i].done(), "rank " + std::to_string(i - s.offset) + " of " + s.spec->name +
                                         " is blocked at the end of the simulation (deadlock)");
    }
    SimRunResult out;
    out.makespan_s = now_;
    out.simulation_events = events_;
    for (auto& s : apps_) out.apps.push_back(std::move(s.result));
    return out;
  }

  // Returns true when the operation completed at once.
  bool start(int rank, const Runtime::Request& r);

  // A rank starts or stops waiting (polling) on its computer.
  void set_waiting(int rank, bool waiting) {
    SimRank& r = *ranks_[rank];
    if (r.waiting == waiting) return;
    r.waiting = waiting;
    const std::size_t c = mapping_[rank];
    if (p_.computers[c].wait_cpu_share <= 0) {
      waiting_[c] += waiting ? 1 : -1;
      return;
    }
    advance_compute(c);
    waiting_[c] += waiting ? 1 : -1;
    reschedule_compute(c);
  }

  void record(int rank, const TraceEvent& e) {
    AppState& s = apps_[ranks_[rank]->app()];
    SimAppResult& res = s.result;
    res.end_s = std::max(res.end_s, e.end_s);
    if (options_.keep_events) res.events.push_back(e);
    if (e.iteration < 0) return;
    const auto k = static_cast<std::size_t>(e.iteration);
    if (res.iterations.size() <= k) {
      for (std::size_t i = res.iterations.size(); i <= k; ++i) {
        IterationSummary fresh;
        fresh.iteration = static_cast<int>(i);
        fresh.start_s = std::numeric_limits<double>::infinity();
        fresh.end_s = -std::numeric_limits<double>::infinity();
        res.iterations.push_back(fresh);
        s.members.push_back(0);
      }
    }
    IterationSummary& it = res.iterations[k];
    it.start_s = std::min(it.start_s, e.start_s);
    it.end_s = std::max(it.end_s, e.end_s);
    if (is_compute(e.op)) it.compute_s += e.end_s - e.start_s;
    // A rank's iterations never go back, so it enters each one once.
    if (last_iteration_[rank] != e.iteration) {
      last_iteration_[rank] = e.iteration;
      ++s.members[k];
    }
    const auto& ranks_in = s.spec->ranks_in_iteration;
    it.ranks = std::max(ranks_in ? ranks_in(e.iteration) : s.size, s.members[k]);
  }

 private:
  using Op = Runtime::Op;

  // Work left over by rounding is done: what a step of the clock at `now_` cannot resolve (a fixed
  // tolerance would loop for ever once now_ + remaining == now_).
  double tolerance_s() const { return 1e-12 + 1e-12 * now_; }

  // The application body, then waiting for the rest of the launch group.
  Task run_rank(SimRank& r) {
    co_await apps_[r.app()].spec->body(r);
    LaunchGroup& g = groups_[apps_[r.app()].group];
    const int id = rank_id(r);
    set_waiting(id, true);
    if (++g.done == static_cast<int>(g.ranks.size())) {
      for (int other : g.ranks) set_waiting(other, false);
    }
  }
  int rank_id(const SimRank& r) const { return apps_[r.app()].offset + r.rank(); }

  // --- compute: processor sharing per computer; waiting ranks take their share of a core too ---
  double compute_rate(std::size_t c) const {
    const SimComputer& computer = p_.computers[c];
    const double demand = static_cast<double>(compute_[c].size()) + computer.wait_cpu_share * waiting_[c];
    return std::min(1.0, computer.cores / demand);
  }
  // Kernels computing at once on several cores slow each other down (shared caches, memory bandwidth).
  double kernel_efficiency(std::size_t c) const {
    const SimComputer& computer = p_.computers[c];
    if (computer.cores <= 1) return 1;
    const double busy = std::min(static_cast<double>(compute_[c].size()), static_cast<double>(computer.cores));
    return 1 - (1 - computer.core_efficiency) * std::max(0.0, busy - 1) / (computer.cores - 1);
  }
  double op_rate(std::size_t c, const ComputeOp& op) const {
    return compute_rate(c) * (op.memory_bound ? kernel_efficiency(c) : 1);
  }
  void advance_compute(std::size_t c) {
    double dt = now_ - compute_last_[c];
    compute_last_[c] = now_;
    auto& ops = compute_[c];
    if (dt <= 0 || ops.empty()) return;
    for (auto& op : ops) op.remaining_s -= op_rate(c, op) * dt;
  }
  void reschedule_compute(std::size_t c) {
    auto& ops = compute_[c];
    ++compute_stamp_[c];
    if (ops.empty()) return;
    double next = std::numeric_limits<double>::infinity();
    for (auto& op : ops) next = std::min(next, std::max(0.0, op.remaining_s) / op_rate(c, op));
    queue_.schedule(now_ + next, kComputeDone, static_cast<std::uint32_t>(c), compute_stamp_[c]);
  }
  void start_compute(int rank, double seconds, bool memory_bound) {
    std::size_t c = mapping_[rank];
    advance_compute(c);
    compute_[c].push_back({rank, seconds, memory_bound});
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
  // Only transfers past their latency share bandwidth; the counts per computer are kept up to date.
  void advance_network() {
    double dt = now_ - network_last_;
    network_last_ = now_;
    if (dt <= 0) return;
    for (auto& [id, t] : flowing_) t.remaining_bytes -= t.rate * dt;
  }
  void reschedule_network() {
    ++network_stamp_;
    double next = std::numeric_limits<double>::infinity();
    for (auto& [id, t] : flowing_) {
      t.rate = p_.bandwidth_bytes_per_s / std::max(out_[t.from], in_[t.to]);
      next = std::min(next, std::max(0.0, t.remaining_bytes) / t.rate);
    }
    if (next < std::numeric_limits<double>::infinity()) queue_.schedule(now_ + next, kNetworkDone, 0, network_stamp_);
  }
  void start_transfer(const std::shared_ptr<Message>& m) {
    std::uint32_t id = next_transfer_++;
    m->transferring = true;
    latent_[id] = Transfer{mapping_[m->src], mapping_[m->dst], static_cast<double>(m->bytes), m, 0};
    queue_.schedule(now_ + p_.latency_s + handoff_s_[mapping_[m->dst]], kLatencyDone, id);
  }
  void latency_done(std::uint32_t id) {
    auto it = latent_.find(id);
    Transfer t = std::move(it->second);
    latent_.erase(it);
    if (t.remaining_bytes <= 0) {  // nothing to stream: it arrives with its latency
      arrive(t.message);
      return;
    }
    advance_network();
    ++out_[t.from], ++in_[t.to];
    flowing_.emplace(id, std::move(t));
    reschedule_network();
  }
  void network_done() {
    advance_network();
    std::vector<std::shared_ptr<Message>> finished;
    for (auto it = flowing_.begin(); it != flowing_.end();) {
      if (it->second.remaining_bytes <= it->second.rate * tolerance_s()) {
        --out_[it->second.from], --in_[it->second.to];
        finished.push_back(it->second.message);
        it = flowing_.erase(it);
      } else {
        ++it;
      }
    }
    reschedule_network();
    for (auto& m : finished) arrive(m);
  }
  // A message has crossed the network: its sender (rendezvous) and receiver (if waiting) go on.
  void arrive(const std::shared_ptr<Message>& m) {
    m->arrived = true;
    m->transferring = false;
    if (!m->eager) {
      SimRank& sender = *ranks_[m->src];
      if (m->send_handle < 0) {
        sender.complete(now_);
      } else {
        sender.handle_done[m->send_handle] = true;
        if (sender.waiting_handle == m->send_handle) {
          sender.waiting_handle = -1;
          sender.handle_done.erase(m->send_handle);
          sender.complete(now_);
        }
      }
    }
    if (m->receiver_waiting) ranks_[m->dst]->complete(now_);
  }
  // Sends `bytes` from rank `src` to `dst` (global ids); true when the sender may go on at once.
  bool send(int src, int dst, int tag, std::uint64_t bytes, int handle) {
    auto m = std::make_shared<Message>();
    m->src = src, m->dst = dst, m->tag = tag, m->bytes = bytes, m->eager = bytes <= p_.eager_limit_bytes;
    m->send_handle = handle;
    auto& posted = posted_[dst];
    auto it = std::find(posted.begin(), posted.end(), std::make_pair(src, tag));
    if (it != posted.end()) {  // the receiver is already waiting for it
      posted.erase(it);
      m->receiver_waiting = true;
      start_transfer(m);
    } else {
      inbox_[dst][{src, tag}].push_back(m);
      if (m->eager) start_transfer(m);
    }
    return m->eager;
  }

  const SimPlatform& p_;
  SimOptions options_;
  std::vector<std::size_t> mapping_;  // per global rank
  std::vector<std::unique_ptr<SimRank>> ranks_;
  std::vector<int> last_iteration_;
  std::vector<AppState> apps_;
  EventQueue queue_;
  double now_ = 0;
  std::uint64_t events_ = 0;
  std::vector<std::vector<ComputeOp>> compute_;
  std::vector<std::uint64_t> compute_stamp_;
  std::vector<double> compute_last_;
  std::vector<double> disk_free_at_;
  std::vector<int> waiting_;                   // waiting ranks per computer
  std::vector<double> handoff_s_;              // extra message latency into each computer
  std::vector<LaunchGroup> groups_;
  std::map<int, int> group_index_;             // launch group id -> index in groups_
  std::map<std::uint32_t, Transfer> latent_;   // in their latency
  std::map<std::uint32_t, Transfer> flowing_;  // sharing bandwidth; ordered by id: deterministic
  std::vector<int> out_, in_;                  // flowing transfers per computer and direction
  std::uint32_t next_transfer_ = 0;
  std::uint64_t network_stamp_ = 0;
  double network_last_ = 0;
  // Per destination rank: unreceived messages by (source, tag), in send order.
  std::vector<std::map<std::pair<int, int>, std::deque<std::shared_ptr<Message>>>> inbox_;
  std::vector<std::deque<std::pair<int, int>>> posted_;  // per destination rank: (source, tag) waiting
};

double SimRank::now() const { return world_.now(); }
bool SimRank::start(const Request& r, TraceEvent& event) {
  pending_ = event;
  bool done = world_.start(id_, r);
  const bool communication = r.op == Op::kSend || r.op == Op::kRecv || r.op == Op::kWait || r.op == Op::kBarrier;
  if (!done && communication) world_.set_waiting(id_, true);
  return done;
}
void SimRank::complete(double t) {
  world_.set_waiting(id_, false);
  finish_complete(t);
}
void SimRank::record(const TraceEvent& event) { world_.record(id_, event); }

bool World::start(int rank, const Runtime::Request& r) {
  const std::size_t c = mapping_[rank];
  SimRank& me = *ranks_[rank];
  AppState& app = apps_[me.app()];
  switch (r.op) {
    case Op::kSend: return send(rank, me.global(r.peer), r.tag, r.bytes, -1);
    case Op::kIsend:
      // Eager: delivered as far as the sender is concerned; rendezvous: done when the transfer ends.
      me.handle_done[r.handle] = send(rank, me.global(r.peer), r.tag, r.bytes, r.handle);
      return true;
    case Op::kWait: {
      auto it = me.handle_done.find(r.handle);
      HETPERF_CHECK(it != me.handle_done.end(), "wait on an unknown or finished send handle");
      if (it->second) {
        me.handle_done.erase(it);
        return true;
      }
      me.waiting_handle = r.handle;
      return false;
    }
    case Op::kRecv: {
      const int src = me.global(r.peer);
      auto& inbox = inbox_[rank];
      auto box = inbox.find({src, r.tag});
      if (box == inbox.end()) {
        posted_[rank].emplace_back(src, r.tag);
        return false;
      }
      std::shared_ptr<Message> m = box->second.front();
      box->second.pop_front();
      if (box->second.empty()) inbox.erase(box);
      if (m->arrived) return true;
      m->receiver_waiting = true;
      if (!m->transferring) start_transfer(m);  // rendezvous: the sender has been waiting
      return false;
    }
    case Op::kBarrier: {
      app.barrier_waiting.push_back(rank);
      if (++app.barrier_count < app.size) return false;
      app.barrier_count = 0;
      std::vector<int> waiting;
      waiting.swap(app.barrier_waiting);
      for (int w : waiting) {
        if (w != rank) ranks_[w]->complete(now_);
      }
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
  start_compute(rank, std::max(0.0, p_.kernel_time(call, c)), r.op != Op::kIntegrate);
  return false;
}

}  // namespace

SimRunResult simulate_apps(const SimPlatform& platform, const std::vector<SimApp>& apps, const SimOptions& options) {
  World world(platform, apps, options);
  return world.run();
}

SimRunResult simulate_app(const SimPlatform& platform, const std::vector<std::size_t>& mapping,
                          const std::function<Task(Runtime&)>& app) {
  SimRunResult r = simulate_apps(platform, {SimApp{"app", mapping, 0, app}});
  r.events = r.apps.front().events;
  return r;
}

}  // namespace hetperf::apps
