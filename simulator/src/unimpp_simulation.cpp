// UniMPP simulation (seed 001 section 2, network of seed 003 section 4).
//
// Processor sharing: with n processes computing on a computer of c cores, each gets the rate
// min(pc, C / n) / (1 + α(occupied memory)) where C = c · pc · (1 - CPU share taken by transfers), the
// same for all, so one "virtual service" clock V per computer tells when each finishes (when V reaches
// V_start + remaining MI); the earliest finisher sits at the top of a per-computer heap, and a process
// that migrates away leaves a stale heap entry recognised by its generation number.
// Disks are FIFO servers. Network transfers share link bandwidth equally per direction and are
// rescheduled whenever a transfer starts or ends on one of their two links.
#include "hetperf/simulator/unimpp_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>

#include "hetperf/model/error.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/simulator/event_queue.hpp"
#include "hetperf/simulator/placement.hpp"

namespace hetperf::sim {
namespace {

enum EventKind : std::uint32_t {
  kArrival,
  kComputeDone,   // a = computer, b = its stamp
  kDiskDone,      // a = computer
  kTransferDone,  // a = transfer slot, b = its stamp
  kLatencyDone,   // a = process: θ of its message elapsed
  kSleepDone,     // a = process
  kBalance,       // the load balancer's round
  kMigrated,      // a = process: arrived at its new computer
};

// The operations of a process, in order (workload.hpp): receive, read, compute, write, send, sleep.
enum class Phase : std::uint8_t { kReceive, kRead, kCompute, kWrite, kSend, kSleep, kDone };

constexpr std::int32_t kNone = -1;
constexpr double kTimelineStart = 1.0 / (1 << 20);  // s, first timeline interval

// One process instance. Its name is generated only for the output (spec + instance number).
struct Proc {
  double arrival_s = 0, start_s = 0, finish_s = 0;
  double mi = 0, memory_mb = 0, read_bytes = 0, write_bytes = 0, message_bytes = 0, sleep_s = 0;
  double remaining_mi = 0;            // work still to do when the present compute stay started
  double v_start = 0, m_start = 0;    // computer's virtual service / ∫α dV when it started there
  double segment_from_s = 0;          // start of its present stay (eq. 9), for migrated processes
  ResponseBreakdown b;
  std::uint32_t spec = 0, instance = 0;  // instance 0: the spec's only copy (no "-k" suffix)
  std::int32_t pinned = kNone;
  std::int32_t peer = kNone;          // kNone, a computer index, or computers + process index
  std::uint32_t computer = 0;
  std::uint32_t reads = 0, writes = 0, receives = 0, sends = 0, done_in_phase = 0;
  std::uint32_t generation = 0;       // of its compute stays, to recognise stale heap entries
  Phase phase = Phase::kReceive;
  bool computing = false, placed = false, migrated = false;
};

struct Finish {  // a computing process in its computer's heap
  double v;      // V at which it finishes
  std::uint32_t proc, generation;
  bool operator>(const Finish& o) const { return v != o.v ? v > o.v : proc > o.proc; }
};

struct Disk {  // FIFO server of reads and writes
  std::deque<std::uint32_t> waiting;
  bool busy = false;
  std::uint32_t serving = 0;
};

struct Transfer {  // bytes of one message crossing the star network
  double remaining_bytes = 0, rate = 0, last = 0;
  std::uint64_t stamp = 0;       // invalidates stale kTransferDone events
  std::uint32_t proc = 0;
  std::int32_t src = kNone, dst = kNone;  // kNone: outside the cluster
  std::uint32_t pos_out = 0, pos_in = 0;  // positions in the links' lists
};

struct Node {
  // Processor sharing state.
  double v = 0;           // virtual service delivered to each computing process so far (MI)
  double m = 0;           // ∫ α dV, for the memory part of the breakdown
  double rate = 0;        // current per-process rate (MI/s)
  double alpha = 0;
  double last = 0;        // time v, m and the timeline were last advanced
  std::uint64_t stamp = 0;  // invalidates stale kComputeDone events
  std::vector<Finish> heap; // min-heap on v
  double busy_s = 0, peak_memory_mb = 0;
  std::size_t placed = 0;
  Disk disk;
  std::vector<std::uint32_t> out, in;  // transfers on the link, each way
  std::vector<double> busy_integral, memory_integral;  // timeline buckets
};

std::uint32_t round_count(double x) {
  return static_cast<std::uint32_t>(std::llround(std::clamp(x, 0.0, 4.0e9)));
}

class Simulation {
 public:
  Simulation(const Profile& profile, const Workload& workload, const std::string& file, const SimulationOptions& opt)
      : profile_(profile),
        workload_(workload),
        file_(file),
        seed_(opt.seed.value_or(workload.seed)),
        rng_(seed_),
        timeline_points_(opt.timeline_points) {
    placement_name_ = opt.placement.value_or(workload.policy.placement);
    try {
      policy_ = make_placement(placement_name_, workload.policy.options);
    } catch (const InputError& e) {
      throw InputError((opt.placement ? std::string("--policy") : file_ + ": $.policy.placement") + ": " + e.what());
    }
    std::size_t n = profile.computers.size();
    nodes_.resize(n);
    load_.resize(n);
    for (const auto& c : profile.computers) max_memory_mb_ = std::max(max_memory_mb_, c.main_memory_mb + c.virtual_memory_mb);
    for (const auto& c : profile.computers) communication_costs_cpu_ |= c.cpu_share_per_send > 0 || c.cpu_share_per_receive > 0;
    if (timeline_points_ > 0) {
      interval_ = kTimelineStart;
      for (Node& node : nodes_) {
        node.busy_integral.assign(timeline_points_, 0.0);
        node.memory_integral.assign(timeline_points_, 0.0);
      }
    }
    instantiate();
    queue_.reserve(4 * n + 64);
  }

  Prediction run() {
    if (!order_.empty()) {
      queue_.schedule(procs_[order_[0]].arrival_s, kArrival, order_[0]);
      if (workload_.policy.load_balancer) {
        queue_.schedule(procs_[order_[0]].arrival_s + workload_.policy.load_balancer->period_s, kBalance, 0);
      }
    }
    while (!queue_.empty()) {
      Event e = queue_.pop();
      if (e.kind == kBalance && finished_ == procs_.size()) continue;  // nothing left to balance
      now_ = e.time;
      ++events_;
      switch (e.kind) {
        case kArrival: arrive(e.a); break;
        case kComputeDone:
          if (e.b == nodes_[e.a].stamp) compute_done(e.a);
          break;
        case kDiskDone: disk_done(e.a); break;
        case kTransferDone:
          if (e.b == transfers_[e.a].stamp) transfer_done(e.a);
          break;
        case kLatencyDone:
          ++procs_[e.a].done_in_phase;
          step(e.a);
          break;
        case kSleepDone: next_phase(e.a); break;
        case kBalance: balance(); break;
        case kMigrated: start_compute(e.a); break;
      }
    }
    return result();
  }

 private:
  // --- instantiation: every process drawn up front, in file order, from the one seeded stream ---
  [[noreturn]] void fail(std::size_t spec, const std::string& field, const std::string& what) const {
    throw InputError(file_ + ": " + spec_path(spec) + field + ": " + what);
  }
  std::string spec_path(std::size_t spec) const {
    return spec < workload_.processes.size() ? workload_.processes[spec].json_path
                                             : workload_.generators[spec - workload_.processes.size()].json_path + ".process";
  }
  const ProcessSpec& spec_of(std::size_t spec) const {
    return spec < workload_.processes.size() ? workload_.processes[spec]
                                             : workload_.generators[spec - workload_.processes.size()].process;
  }

  // A message peer: a process listed once (its index), else a computer; kNone when absent.
  std::int32_t resolve_peer(const ProcessSpec& s, std::size_t spec) const {
    if (s.peer.empty()) return kNone;
    std::size_t first = 0;
    for (const ProcessSpec& other : workload_.processes) {
      if (other.name == s.peer) {
        if (other.count != 1) {
          fail(spec, ".messages.peer", "expected a computer or a process listed with count 1, got \"" + s.peer +
                                           "\" which stands for " + std::to_string(other.count) + " processes");
        }
        return static_cast<std::int32_t>(profile_.computers.size() + first);
      }
      first += static_cast<std::size_t>(other.count);
    }
    if (auto c = profile_.find(s.peer)) return static_cast<std::int32_t>(*c);
    fail(spec, ".messages.peer", "expected the name of a computer in the platform profile or of a process listed "
                                 "with count 1, got \"" + s.peer + "\"");
  }

  void add(const ProcessSpec& s, std::size_t spec, std::uint32_t instance, double arrival, std::int32_t pinned,
           std::int32_t peer) {
    Proc p;
    p.spec = static_cast<std::uint32_t>(spec);
    p.instance = instance;
    p.arrival_s = arrival;
    p.pinned = pinned;
    p.peer = peer;
    p.mi = std::max(0.0, s.mi.sample(rng_));
    p.remaining_mi = p.mi;
    p.memory_mb = std::max(0.0, s.static_memory_mb.sample(rng_)) + std::max(0.0, s.dynamic_memory_mb.sample(rng_));
    p.reads = round_count(s.disk_read_ops.sample(rng_));
    p.read_bytes = std::max(0.0, s.disk_read_bytes.sample(rng_));
    p.writes = round_count(s.disk_write_ops.sample(rng_));
    p.write_bytes = std::max(0.0, s.disk_write_bytes.sample(rng_));
    std::uint32_t messages = round_count(s.messages.sample(rng_));
    p.receives = (messages + 1) / 2;
    p.sends = messages / 2;
    p.message_bytes = std::max(0.0, s.message_bytes.sample(rng_));
    p.sleep_s = std::max(0.0, s.sleep_s.sample(rng_));
    double limit = pinned >= 0 ? profile_.computers[static_cast<std::size_t>(pinned)].main_memory_mb +
                                     profile_.computers[static_cast<std::size_t>(pinned)].virtual_memory_mb
                               : max_memory_mb_;
    if (p.memory_mb > limit) {
      fail(spec, ".static_memory_mb",
           "process needs " + std::to_string(p.memory_mb) + " MB (static plus dynamic memory) but " +
               (pinned >= 0 ? "computer '" + profile_.computers[static_cast<std::size_t>(pinned)].name + "' has only "
                            : std::string("the largest computer has ")) +
               std::to_string(limit) + " MB of main plus virtual memory");
    }
    procs_.push_back(p);
  }

  std::int32_t resolve_pin(const ProcessSpec& s, std::size_t spec) const {
    if (s.computer.empty()) return kNone;
    auto idx = profile_.find(s.computer);
    if (!idx) fail(spec, ".computer", "expected the name of a computer in the platform profile, got \"" + s.computer + "\"");
    return static_cast<std::int32_t>(*idx);
  }

  void instantiate() {
    std::size_t total = 0;
    for (const auto& s : workload_.processes) total += static_cast<std::size_t>(s.count);
    for (const auto& g : workload_.generators) total += g.count ? static_cast<std::size_t>(*g.count) : 0;
    procs_.reserve(total);
    for (std::size_t i = 0; i < workload_.processes.size(); ++i) {
      const ProcessSpec& s = workload_.processes[i];
      std::int32_t pin = resolve_pin(s, i), peer = resolve_peer(s, i);
      for (std::int64_t k = 1; k <= s.count; ++k) {
        add(s, i, s.count > 1 ? static_cast<std::uint32_t>(k) : 0, s.arrival_s, pin, peer);
      }
    }
    for (std::size_t g = 0; g < workload_.generators.size(); ++g) {
      const ArrivalGenerator& gen = workload_.generators[g];
      std::size_t spec = workload_.processes.size() + g;
      std::int32_t pin = resolve_pin(gen.process, spec), peer = resolve_peer(gen.process, spec);
      double t = gen.start_s;
      for (std::int64_t k = 1;; ++k) {
        if (gen.count && k > *gen.count) break;
        if (gen.horizon_s && t > *gen.horizon_s) break;
        add(gen.process, spec, static_cast<std::uint32_t>(k), t, pin, peer);
        t += std::max(0.0, gen.interarrival_s.sample(rng_));
      }
    }
    // Arrival order: by time, ties by definition order. Arrivals enter the event queue one at a time.
    order_.resize(procs_.size());
    for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](auto x, auto y) { return procs_[x].arrival_s < procs_[y].arrival_s; });
  }

  // --- process life cycle ---
  void arrive(std::uint32_t i) {
    if (++next_arrival_ < order_.size()) {
      queue_.schedule(procs_[order_[next_arrival_]].arrival_s, kArrival, order_[next_arrival_]);
    }
    Proc& p = procs_[i];
    std::size_t c = p.pinned >= 0 ? static_cast<std::size_t>(p.pinned)
                                  : policy_->place(profile_.computers, load_, {i, p.memory_mb, p.mi}, rng_);
    HETPERF_CHECK(c < nodes_.size(), "placement policy returned an invalid computer");
    const Computer& comp = profile_.computers[c];
    if (p.memory_mb > comp.main_memory_mb + comp.virtual_memory_mb) {
      fail(p.spec, ".static_memory_mb", "process " + name_of(p) + " was placed on '" + comp.name + "' by policy '" +
                                            placement_name_ + "' but needs more than its main plus virtual memory");
    }
    p.computer = static_cast<std::uint32_t>(c);
    p.start_s = now_;
    p.segment_from_s = now_;
    p.placed = true;
    ++nodes_[c].placed;
    ++load_[c].resident;
    policy_->resident_changed(profile_.computers, load_, c);
    set_memory(p.computer, load_[c].occupied_mb + p.memory_mb);
    p.phase = Phase::kReceive;
    p.done_in_phase = 0;
    step(i);
  }

  // Starts the next operation of process i, skipping empty phases and messages within one computer.
  void step(std::uint32_t i) {
    Proc& p = procs_[i];
    for (;;) {
      switch (p.phase) {
        case Phase::kReceive:
        case Phase::kSend: {
          std::uint32_t total = p.phase == Phase::kReceive ? p.receives : p.sends;
          if (p.done_in_phase < total) {
            std::int32_t other = peer_computer(p);
            // A message to a process on the same computer does not use the network (seed 001 eq. 9 note).
            if (other != static_cast<std::int32_t>(p.computer)) return start_message(i, other);
            p.done_in_phase = total;
          }
          break;
        }
        case Phase::kRead:
        case Phase::kWrite:
          if (p.done_in_phase < (p.phase == Phase::kRead ? p.reads : p.writes)) return enqueue_disk(i);
          break;
        case Phase::kCompute:
          if (p.done_in_phase == 0 && p.mi > 0) {
            p.done_in_phase = 1;
            return start_compute(i);
          }
          break;
        case Phase::kSleep:
          if (p.done_in_phase == 0 && p.sleep_s > 0) {
            p.done_in_phase = 1;
            p.b.sleep_s = p.sleep_s;  // lz of eq. 8
            queue_.schedule(now_ + p.sleep_s, kSleepDone, i);
            return;
          }
          break;
        case Phase::kDone: return;
      }
      p.phase = static_cast<Phase>(static_cast<int>(p.phase) + 1);
      p.done_in_phase = 0;
      if (p.phase == Phase::kDone) return finish(i);
    }
  }

  void next_phase(std::uint32_t i) {
    Proc& p = procs_[i];
    p.phase = static_cast<Phase>(static_cast<int>(p.phase) + 1);
    p.done_in_phase = 0;
    if (p.phase == Phase::kDone) return finish(i);
    step(i);
  }

  void finish(std::uint32_t i) {
    Proc& p = procs_[i];
    p.finish_s = now_;
    --load_[p.computer].resident;
    policy_->resident_changed(profile_.computers, load_, p.computer);
    set_memory(p.computer, std::max(0.0, load_[p.computer].occupied_mb - p.memory_mb));
    if (p.migrated) segments_.push_back({i, p.computer, p.segment_from_s, now_});
    double response = p.finish_s - p.arrival_s;  // eq. 8 (eq. 9 when migrated): SL, measured from arrival
    auto& b = p.b;
    b.waiting_s = std::max(0.0, response - (b.cpu_s + b.memory_s + b.disk_s + b.network_s + b.sleep_s + b.migration_s));
    ++finished_;
  }

  // --- disk: one FIFO server per computer (eq. 4-5) ---
  void enqueue_disk(std::uint32_t i) {
    Node& n = nodes_[procs_[i].computer];
    n.disk.waiting.push_back(i);
    if (!n.disk.busy) serve_disk(procs_[i].computer);
  }

  void serve_disk(std::uint32_t c) {
    Disk& d = nodes_[c].disk;
    if (d.waiting.empty()) {
      d.busy = false;
      return;
    }
    std::uint32_t i = d.waiting.front();
    d.waiting.pop_front();
    d.busy = true;
    d.serving = i;
    Proc& p = procs_[i];
    const Computer& comp = profile_.computers[c];
    bool reading = p.phase == Phase::kRead;
    double service = reading ? p.read_bytes / comp.disk_read_bytes_per_s     // eq. 4: bsize / dr
                             : p.write_bytes / comp.disk_write_bytes_per_s;  // eq. 5: bsize / dw
    p.b.disk_s += service;  // the time queued before (wtdr, wtdw) is part of waiting_s
    queue_.schedule(now_ + service, kDiskDone, c);
  }

  void disk_done(std::uint32_t c) {
    std::uint32_t i = nodes_[c].disk.serving;
    serve_disk(c);
    ++procs_[i].done_in_phase;
    step(i);
  }

  // --- network: star topology, equal sharing per link direction (seed 003 section 4), θ (eq. 6-7) ---
  std::int32_t peer_computer(const Proc& p) const {
    if (p.peer == kNone) return kNone;
    std::size_t computers = nodes_.size();
    if (static_cast<std::size_t>(p.peer) < computers) return p.peer;
    const Proc& q = procs_[static_cast<std::size_t>(p.peer) - computers];
    // A peer that has not arrived yet is reached where it is pinned, else outside the cluster.
    return q.placed ? static_cast<std::int32_t>(q.computer) : q.pinned;
  }

  void start_message(std::uint32_t i, std::int32_t other) {
    Proc& p = procs_[i];
    const Computer& comp = profile_.computers[p.computer];
    p.b.network_s += unimpp::message_time(comp.overhead_latency_s, p.message_bytes, profile_.network.bandwidth_bytes_per_s);
    if (p.message_bytes <= 0) {
      queue_.schedule(now_ + comp.overhead_latency_s, kLatencyDone, i);
      return;
    }
    std::uint32_t t;
    if (free_transfers_.empty()) {
      t = static_cast<std::uint32_t>(transfers_.size());
      transfers_.emplace_back();
    } else {
      t = free_transfers_.back();
      free_transfers_.pop_back();
    }
    Transfer& x = transfers_[t];
    bool sending = p.phase == Phase::kSend;
    x.proc = i;
    x.src = sending ? static_cast<std::int32_t>(p.computer) : other;
    x.dst = sending ? other : static_cast<std::int32_t>(p.computer);
    x.remaining_bytes = p.message_bytes;
    x.rate = 0;
    x.last = now_;
    if (x.src >= 0) {
      x.pos_out = static_cast<std::uint32_t>(nodes_[x.src].out.size());
      nodes_[x.src].out.push_back(t);
    }
    if (x.dst >= 0) {
      x.pos_in = static_cast<std::uint32_t>(nodes_[x.dst].in.size());
      nodes_[x.dst].in.push_back(t);
    }
    relink(x.src, x.dst);
  }

  void transfer_done(std::uint32_t t) {
    Transfer& x = transfers_[t];
    ++x.stamp;
    std::int32_t src = x.src, dst = x.dst;
    if (src >= 0) unlink(nodes_[src].out, x.pos_out, true);
    if (dst >= 0) unlink(nodes_[dst].in, x.pos_in, false);
    free_transfers_.push_back(t);
    std::uint32_t i = x.proc;
    relink(src, dst);
    // The bytes are across; θ (overhead and latency, eq. 7) follows.
    queue_.schedule(now_ + profile_.computers[procs_[i].computer].overhead_latency_s, kLatencyDone, i);
  }

  void unlink(std::vector<std::uint32_t>& list, std::uint32_t pos, bool out) {
    std::uint32_t moved = list.back();
    list[pos] = moved;
    (out ? transfers_[moved].pos_out : transfers_[moved].pos_in) = pos;
    list.pop_back();
  }

  // The transfer counts of `src` (outgoing) and `dst` (incoming) changed: new rates for every transfer
  // on those two links, and new processing capacity where communication costs CPU.
  void relink(std::int32_t src, std::int32_t dst) {
    if (src >= 0) {
      for (std::uint32_t t : nodes_[src].out) rerate(t);
    }
    if (dst >= 0) {
      for (std::uint32_t t : nodes_[dst].in) {
        if (transfers_[t].src != src || src < 0) rerate(t);  // those from src were just done
      }
    }
    if (communication_costs_cpu_) {
      for (std::int32_t c : {src, dst}) {
        if (c >= 0 && (profile_.computers[c].cpu_share_per_send > 0 || profile_.computers[c].cpu_share_per_receive > 0)) {
          advance(static_cast<std::uint32_t>(c));
          reschedule(static_cast<std::uint32_t>(c));
        }
      }
    }
  }

  void rerate(std::uint32_t t) {
    Transfer& x = transfers_[t];
    x.remaining_bytes = std::max(0.0, x.remaining_bytes - x.rate * (now_ - x.last));
    x.last = now_;
    std::size_t sharing = std::max(x.src >= 0 ? nodes_[x.src].out.size() : 0, x.dst >= 0 ? nodes_[x.dst].in.size() : 0);
    x.rate = profile_.network.bandwidth_bytes_per_s / static_cast<double>(std::max<std::size_t>(sharing, 1));
    queue_.schedule(now_ + x.remaining_bytes / x.rate, kTransferDone, t, ++x.stamp);
  }

  // Fraction of a computer's processing capacity left by its concurrent transfers (seed 003 section 4).
  double cpu_free(std::uint32_t c) const {
    const Computer& comp = profile_.computers[c];
    if (comp.cpu_share_per_send <= 0 && comp.cpu_share_per_receive <= 0) return 1.0;
    const Node& n = nodes_[c];
    return std::max(0.0, 1.0 - comp.cpu_share_per_send * static_cast<double>(n.out.size()) -
                             comp.cpu_share_per_receive * static_cast<double>(n.in.size()));
  }

  // --- processor sharing with memory slowdown (eq. 2-3) ---
  void advance(std::uint32_t c) {
    Node& n = nodes_[c];
    double dt = now_ - n.last;
    if (dt <= 0) return;
    std::size_t computing = load_[c].computing;
    if (computing > 0) {
      n.v += n.rate * dt;
      n.m += n.rate * n.alpha * dt;
      n.busy_s += dt;
    }
    if (timeline_points_ > 0 && (computing > 0 || load_[c].occupied_mb > 0)) {
      double cores = profile_.computers[c].cores;
      record(c, n.last, now_, std::min(1.0, static_cast<double>(computing) / cores), load_[c].occupied_mb);
    }
    n.last = now_;
  }

  bool valid(const Finish& f) const { return procs_[f.proc].computing && procs_[f.proc].generation == f.generation; }

  // Recomputes the per-process rate and schedules the next completion; invalidates the pending one.
  void reschedule(std::uint32_t c) {
    Node& n = nodes_[c];
    const Computer& comp = profile_.computers[c];
    ++n.stamp;
    while (!n.heap.empty() && !valid(n.heap.front())) {
      std::pop_heap(n.heap.begin(), n.heap.end(), std::greater<>{});
      n.heap.pop_back();
    }
    if (load_[c].computing == 0) {
      n.rate = 0;
      return;
    }
    double count = static_cast<double>(load_[c].computing);
    n.alpha = comp.alpha(load_[c].occupied_mb);
    double capacity = comp.cores * comp.mips * cpu_free(c);
    n.rate = std::min(comp.mips, capacity / count) / (1 + n.alpha);
    if (n.rate <= 0) return;  // communication takes the whole processor; a transfer's end reschedules
    double remaining = std::max(0.0, n.heap.front().v - n.v);
    queue_.schedule(now_ + remaining / n.rate, kComputeDone, c, n.stamp);
  }

  void set_memory(std::uint32_t c, double occupied_mb) {
    Node& n = nodes_[c];
    advance(c);
    load_[c].occupied_mb = occupied_mb;
    n.peak_memory_mb = std::max(n.peak_memory_mb, occupied_mb);
    if (load_[c].computing > 0) reschedule(c);
  }

  void start_compute(std::uint32_t i) {
    Proc& p = procs_[i];
    Node& n = nodes_[p.computer];
    advance(p.computer);
    p.v_start = n.v;
    p.m_start = n.m;
    p.computing = true;
    ++p.generation;
    n.heap.push_back({n.v + p.remaining_mi, i, p.generation});
    std::push_heap(n.heap.begin(), n.heap.end(), std::greater<>{});
    ++load_[p.computer].computing;
    reschedule(p.computer);
  }

  void compute_done(std::uint32_t c) {
    Node& n = nodes_[c];
    advance(c);
    const Computer& comp = profile_.computers[c];
    // The event is current (its stamp matched), so the top of the heap is done; everyone within
    // rounding of it leaves the processor together.
    done_.clear();
    double top_v = n.heap.front().v;
    n.v = std::max(n.v, top_v);
    while (!n.heap.empty() && (!valid(n.heap.front()) || n.heap.front().v <= n.v * (1 + 1e-12) + 1e-12)) {
      if (valid(n.heap.front())) done_.push_back(n.heap.front().proc);
      std::pop_heap(n.heap.begin(), n.heap.end(), std::greater<>{});
      n.heap.pop_back();
    }
    for (std::uint32_t i : done_) {
      Proc& p = procs_[i];
      p.computing = false;
      --load_[c].computing;
      p.b.cpu_s += p.remaining_mi / comp.mips;          // TE = mp / pc (eq. 2), summed over stays
      p.b.memory_s += (n.m - p.m_start) / comp.mips;    // TEM - TE (eq. 3) under changing α
      p.remaining_mi = 0;
    }
    reschedule(c);
    for (std::uint32_t i : done_) next_phase(i);
  }

  // --- the periodic load balancer (migration, eq. 9) ---
  // Time one more MI would take on computer c with `computing` processes and `occupied_mb` there.
  double time_per_mi(std::size_t c, std::size_t computing, double occupied_mb) const {
    const Computer& comp = profile_.computers[c];
    double capacity = comp.cores * comp.mips * cpu_free(static_cast<std::uint32_t>(c));
    if (capacity <= 0) return std::numeric_limits<double>::infinity();
    double rate = std::min(comp.mips, capacity / static_cast<double>(std::max<std::size_t>(computing, 1)));
    return (1 + comp.alpha(occupied_mb)) / rate;
  }

  void balance() {
    const LoadBalancerSpec& lb = *workload_.policy.load_balancer;
    for (std::int64_t k = 0; k < lb.max_migrations; ++k) {
      if (!migrate_one(lb)) break;
    }
    if (finished_ < procs_.size()) queue_.schedule(now_ + lb.period_s, kBalance, 0);
  }

  bool migrate_one(const LoadBalancerSpec& lb) {
    std::size_t src = 0;
    double worst = -1;
    for (std::size_t c = 0; c < nodes_.size(); ++c) {
      if (load_[c].computing == 0) continue;
      double t = time_per_mi(c, load_[c].computing, load_[c].occupied_mb);
      if (t > worst) worst = t, src = c;
    }
    if (worst < 0) return false;
    Node& n = nodes_[src];
    advance(static_cast<std::uint32_t>(src));
    // The movable process with the most work left (pinned processes stay).
    std::int64_t pick = -1;
    double most = 0;
    for (const Finish& f : n.heap) {
      if (!valid(f) || procs_[f.proc].pinned >= 0) continue;
      double left = f.v - n.v;
      if (left > most || (left == most && pick >= 0 && f.proc < pick)) most = left, pick = f.proc;
    }
    if (pick < 0) return false;
    std::uint32_t i = static_cast<std::uint32_t>(pick);
    Proc& p = procs_[i];
    std::size_t dst = src;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < nodes_.size(); ++c) {
      const Computer& comp = profile_.computers[c];
      double occupied = load_[c].occupied_mb + p.memory_mb;
      if (c == src || occupied > comp.main_memory_mb + comp.virtual_memory_mb) continue;
      double t = time_per_mi(c, load_[c].computing + 1, occupied);
      if (t < best) best = t, dst = c;
    }
    if (dst == src || worst <= lb.threshold * best) return false;
    if (most * best + lb.migration_cost_s >= most * worst) return false;  // not worth the move

    const Computer& from = profile_.computers[src];
    p.computing = false;
    --load_[src].computing;
    p.b.cpu_s += (p.remaining_mi - most) / from.mips;
    p.b.memory_s += (n.m - p.m_start) / from.mips;
    p.remaining_mi = most;
    segments_.push_back({i, static_cast<std::uint32_t>(src), p.segment_from_s, now_});
    p.segment_from_s = now_;
    p.migrated = true;
    --load_[src].resident;
    policy_->resident_changed(profile_.computers, load_, src);
    set_memory(static_cast<std::uint32_t>(src), std::max(0.0, load_[src].occupied_mb - p.memory_mb));
    if (load_[src].computing == 0) reschedule(static_cast<std::uint32_t>(src));  // drops the pending completion
    // The memory is held at the destination from the start of the move.
    p.computer = static_cast<std::uint32_t>(dst);
    ++load_[dst].resident;
    policy_->resident_changed(profile_.computers, load_, dst);
    set_memory(p.computer, load_[dst].occupied_mb + p.memory_mb);
    p.b.migration_s += lb.migration_cost_s;
    ++migrations_;
    queue_.schedule(now_ + lb.migration_cost_s, kMigrated, i);
    return true;
  }

  // --- timelines: integrals per bucket of `interval_`, coarsened by merging pairs of buckets ---
  void record(std::uint32_t c, double t0, double t1, double utilisation, double memory_mb) {
    while (static_cast<std::size_t>(t1 / interval_) >= timeline_points_ && t1 > t0) coarsen();
    Node& n = nodes_[c];
    std::size_t k = static_cast<std::size_t>(t0 / interval_);
    while (t0 < t1) {
      double end = std::min(t1, static_cast<double>(k + 1) * interval_);
      std::size_t slot = std::min(k, timeline_points_ - 1);
      n.busy_integral[slot] += utilisation * (end - t0);
      n.memory_integral[slot] += memory_mb * (end - t0);
      t0 = end;
      ++k;
    }
  }

  void coarsen() {
    interval_ *= 2;
    for (Node& n : nodes_) {
      for (std::size_t k = 0; k < timeline_points_; ++k) {
        double busy = 0, memory = 0;
        for (std::size_t j = 2 * k; j < std::min(2 * k + 2, timeline_points_); ++j) {
          busy += n.busy_integral[j];
          memory += n.memory_integral[j];
        }
        n.busy_integral[k] = busy;
        n.memory_integral[k] = memory;
      }
    }
  }

  // --- output ---
  std::string name_of(const Proc& p) const {
    const std::string& base = spec_of(p.spec).name;
    return p.instance == 0 ? base : base + "-" + std::to_string(p.instance);
  }

  Prediction result() {
    HETPERF_CHECK(finished_ == procs_.size(), "simulation ended with unfinished processes");
    for (std::uint32_t c = 0; c < nodes_.size(); ++c) advance(c);  // closes busy time and timelines
    Prediction out;
    out.hetperf_version = kVersion;
    out.workload_name = workload_.name;
    out.seed = seed_;
    out.placement = placement_name_;
    out.processes.reserve(procs_.size());
    for (const Proc& p : procs_) {
      out.processes.push_back({name_of(p), profile_.computers[p.computer].name, p.arrival_s, p.start_s, p.finish_s,
                               p.finish_s - p.arrival_s, p.b, {}});
    }
    std::stable_sort(segments_.begin(), segments_.end(), [](const Segment& x, const Segment& y) { return x.proc < y.proc; });
    for (const Segment& s : segments_) {
      out.processes[s.proc].segments.push_back({profile_.computers[s.computer].name, s.from_s, s.to_s});
    }
    out.summary = summarize_responses(out.processes);
    out.summary.events = events_;
    out.summary.migrations = migrations_;
    out.computers.reserve(nodes_.size());
    for (std::size_t c = 0; c < nodes_.size(); ++c) {
      const Node& n = nodes_[c];
      double util = out.summary.makespan_s > 0 ? std::min(1.0, n.busy_s / out.summary.makespan_s) : 0;
      out.computers.push_back({profile_.computers[c].name, n.busy_s, util, n.peak_memory_mb, n.placed, {}});
      if (timeline_points_ > 0 && now_ > 0) {
        ComputerTimeline& tl = out.computers.back().timeline;
        tl.interval_s = interval_;
        std::size_t points = std::min(timeline_points_, static_cast<std::size_t>(now_ / interval_) + 1);
        for (std::size_t k = 0; k < points; ++k) {
          double covered = std::min(interval_, now_ - static_cast<double>(k) * interval_);
          if (covered <= 0) break;
          tl.utilisation.push_back(std::min(1.0, n.busy_integral[k] / covered));
          tl.memory_mb.push_back(n.memory_integral[k] / covered);
        }
      }
    }
    return out;
  }

  struct Segment {  // a finished stay of a migrated process (eq. 9)
    std::uint32_t proc, computer;
    double from_s, to_s;
  };

  const Profile& profile_;
  const Workload& workload_;
  std::string file_;
  std::uint64_t seed_;
  Rng rng_;
  std::size_t timeline_points_;
  double interval_ = 0;
  std::string placement_name_;
  std::unique_ptr<PlacementPolicy> policy_;
  std::vector<Node> nodes_;
  std::vector<ComputerLoad> load_;  // what placement policies see, kept current
  std::vector<Proc> procs_;
  std::vector<std::uint32_t> order_;  // processes by arrival
  std::size_t next_arrival_ = 0;
  std::vector<Transfer> transfers_;
  std::vector<std::uint32_t> free_transfers_;
  std::vector<Segment> segments_;
  std::vector<std::uint32_t> done_;
  EventQueue queue_;
  double now_ = 0, max_memory_mb_ = 0;
  bool communication_costs_cpu_ = false;
  std::uint64_t events_ = 0, migrations_ = 0;
  std::size_t finished_ = 0;
};

}  // namespace

Prediction simulate(const Profile& profile, const Workload& workload, const std::string& workload_file,
                    const SimulationOptions& options) {
  Simulation s(profile, workload, workload_file, options);
  Prediction p = s.run();
  p.workload_file = workload_file;
  return p;
}

}  // namespace hetperf::sim
