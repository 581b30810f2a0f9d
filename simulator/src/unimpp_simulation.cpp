// UniMPP simulation (seed 001 section 2). Each computer serves its computing processes by processor
// sharing: with n of them on c cores each gets rate pc · min(1, c/n) / (1 + α(occupied memory)), the
// same for all, so one "virtual service" clock per computer tells when each finishes (finish when
// V reaches V_start + mp); the earliest finisher sits at the top of a per-computer heap. Disk and
// network interface are FIFO servers per computer.
#include "hetperf/simulator/unimpp_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "hetperf/model/error.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/simulator/event_queue.hpp"
#include "hetperf/simulator/placement.hpp"

namespace hetperf::sim {
namespace {

enum EventKind : std::uint32_t { kArrival, kComputeDone, kDiskDone, kNetDone, kSleepDone };

// The operations of a process, in order (workload.hpp): receive, read, compute, write, send, sleep.
enum class Phase : std::uint8_t { kReceive, kRead, kCompute, kWrite, kSend, kSleep, kDone };

struct Proc {
  std::string name;
  std::size_t spec = 0;     // index of its ProcessSpec (for error paths)
  std::int32_t pinned = -1;
  double arrival_s = 0, start_s = 0, finish_s = 0;
  double mi = 0, memory_mb = 0, read_bytes = 0, write_bytes = 0, message_bytes = 0, sleep_s = 0;
  std::uint64_t reads = 0, writes = 0, receives = 0, sends = 0;
  std::uint32_t computer = 0;
  Phase phase = Phase::kReceive;
  std::uint64_t done_in_phase = 0;
  double v_start = 0, m_start = 0;    // computer's virtual service / memory integral at compute start
  double compute_started_s = 0;
  ResponseBreakdown b;
};

struct Server {  // FIFO disk or network interface
  std::queue<std::pair<std::uint32_t, double>> waiting;  // (process, enqueue time)
  bool busy = false;
  std::uint32_t serving = 0;
};

struct Node {
  // Processor sharing state.
  double v = 0;           // virtual service delivered to each computing process so far (MI)
  double m = 0;           // ∫ α dV, for the memory part of the breakdown
  double rate = 0;        // current per-process rate (MI/s)
  double alpha = 0;
  double last = 0;        // time v and m were last advanced
  std::uint64_t stamp = 0;  // invalidates stale kComputeDone events
  using Finish = std::pair<double, std::uint32_t>;  // (V at which it finishes, process)
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> computing;
  double busy_s = 0, peak_memory_mb = 0;
  std::size_t placed = 0;
  Server disk, net;
};

std::uint64_t round_count(double x) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, x))); }

class Simulation {
 public:
  Simulation(const Profile& profile, const Workload& workload, const std::string& file, const SimulationOptions& opt)
      : profile_(profile), workload_(workload), file_(file), seed_(opt.seed.value_or(workload.seed)), rng_(seed_) {
    placement_name_ = opt.placement.value_or(workload.policy.placement);
    try {
      policy_ = make_placement(placement_name_, workload.policy.options);
    } catch (const InputError& e) {
      throw InputError((opt.placement ? std::string("--policy") : file_ + ": $.policy.placement") + ": " + e.what());
    }
    nodes_.resize(profile.computers.size());
    load_.resize(profile.computers.size());
    max_memory_mb_ = 0;
    for (const auto& c : profile.computers) max_memory_mb_ = std::max(max_memory_mb_, c.main_memory_mb + c.virtual_memory_mb);
    instantiate();
  }

  Prediction run() {
    while (!queue_.empty()) {
      Event e = queue_.pop();
      now_ = e.time;
      ++events_;
      switch (e.kind) {
        case kArrival: arrive(e.a); break;
        case kComputeDone:
          if (e.b == nodes_[e.a].stamp) compute_done(e.a);
          break;
        case kDiskDone: server_done(e.a, nodes_[e.a].disk, true); break;
        case kNetDone: server_done(e.a, nodes_[e.a].net, false); break;
        case kSleepDone: finish_phase(e.a); break;
      }
    }
    return result();
  }

 private:
  [[noreturn]] void fail(std::size_t spec, const std::string& field, const std::string& what) const {
    throw InputError(file_ + ": " + spec_path(spec) + field + ": " + what);
  }
  std::string spec_path(std::size_t spec) const {
    return spec < workload_.processes.size() ? workload_.processes[spec].json_path
                                             : workload_.generators[spec - workload_.processes.size()].json_path + ".process";
  }

  // Draws each process instance's quantities, in file order, from the one seeded stream.
  void add(const ProcessSpec& s, std::size_t spec, std::string name, double arrival) {
    Proc p;
    p.name = std::move(name);
    p.spec = spec;
    p.arrival_s = arrival;
    p.mi = std::max(0.0, s.mi.sample(rng_));
    p.memory_mb = std::max(0.0, s.static_memory_mb.sample(rng_)) + std::max(0.0, s.dynamic_memory_mb.sample(rng_));
    p.reads = round_count(s.disk_read_ops.sample(rng_));
    p.read_bytes = std::max(0.0, s.disk_read_bytes.sample(rng_));
    p.writes = round_count(s.disk_write_ops.sample(rng_));
    p.write_bytes = std::max(0.0, s.disk_write_bytes.sample(rng_));
    std::uint64_t messages = round_count(s.messages.sample(rng_));
    p.receives = (messages + 1) / 2;
    p.sends = messages / 2;
    p.message_bytes = std::max(0.0, s.message_bytes.sample(rng_));
    p.sleep_s = std::max(0.0, s.sleep_s.sample(rng_));
    if (!s.computer.empty()) {
      auto idx = profile_.find(s.computer);
      if (!idx) fail(spec, ".computer", "expected the name of a computer in the platform profile, got \"" + s.computer + "\"");
      p.pinned = static_cast<std::int32_t>(*idx);
      const Computer& c = profile_.computers[*idx];
      if (p.memory_mb > c.main_memory_mb + c.virtual_memory_mb) {
        fail(spec, ".static_memory_mb", "process needs " + std::to_string(p.memory_mb) + " MB but computer '" + c.name +
                                            "' has only " + std::to_string(c.main_memory_mb + c.virtual_memory_mb) +
                                            " MB of main plus virtual memory");
      }
    } else if (p.memory_mb > max_memory_mb_) {
      fail(spec, ".static_memory_mb", "process needs " + std::to_string(p.memory_mb) +
                                          " MB, more than any computer's main plus virtual memory (largest " +
                                          std::to_string(max_memory_mb_) + " MB)");
    }
    procs_.push_back(std::move(p));
  }

  void instantiate() {
    for (std::size_t i = 0; i < workload_.processes.size(); ++i) {
      const ProcessSpec& s = workload_.processes[i];
      for (std::int64_t k = 1; k <= s.count; ++k) {
        add(s, i, s.count > 1 ? s.name + "-" + std::to_string(k) : s.name, s.arrival_s);
      }
    }
    for (std::size_t g = 0; g < workload_.generators.size(); ++g) {
      const ArrivalGenerator& gen = workload_.generators[g];
      double t = gen.start_s;
      for (std::int64_t k = 1;; ++k) {
        if (gen.count && k > *gen.count) break;
        if (gen.horizon_s && t > *gen.horizon_s) break;
        add(gen.process, workload_.processes.size() + g, gen.process.name + "-" + std::to_string(k), t);
        t += std::max(0.0, gen.interarrival_s.sample(rng_));
      }
    }
    // Arrival order: by time, ties by definition order (stable).
    std::vector<std::uint32_t> order(procs_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return procs_[x].arrival_s < procs_[y].arrival_s; });
    for (std::uint32_t i : order) queue_.schedule(procs_[i].arrival_s, kArrival, i);
  }

  void arrive(std::uint32_t i) {
    Proc& p = procs_[i];
    std::size_t c = p.pinned >= 0 ? static_cast<std::size_t>(p.pinned) : policy_->place(profile_.computers, load_, {i, p.memory_mb, p.mi}, rng_);
    HETPERF_CHECK(c < nodes_.size(), "placement policy returned an invalid computer");
    const Computer& comp = profile_.computers[c];
    if (p.memory_mb > comp.main_memory_mb + comp.virtual_memory_mb) {
      fail(p.spec, ".static_memory_mb", "process " + p.name + " was placed on '" + comp.name + "' by policy '" + placement_name_ +
                                            "' but needs more than its main plus virtual memory");
    }
    p.computer = static_cast<std::uint32_t>(c);
    p.start_s = now_;
    Node& n = nodes_[c];
    ++n.placed;
    ++load_[c].resident;
    set_memory(static_cast<std::uint32_t>(c), load_[c].occupied_mb + p.memory_mb);
    p.phase = Phase::kReceive;
    p.done_in_phase = 0;
    step(i);
  }

  // Starts the next operation of process i, skipping empty phases.
  void step(std::uint32_t i) {
    Proc& p = procs_[i];
    Node& n = nodes_[p.computer];
    const Computer& c = profile_.computers[p.computer];
    for (;;) {
      switch (p.phase) {
        case Phase::kReceive:
        case Phase::kSend: {
          std::uint64_t total = p.phase == Phase::kReceive ? p.receives : p.sends;
          if (p.done_in_phase < total) return enqueue(i, n.net, p.computer, false);
          break;
        }
        case Phase::kRead:
          if (p.done_in_phase < p.reads) return enqueue(i, n.disk, p.computer, true);
          break;
        case Phase::kWrite:
          if (p.done_in_phase < p.writes) return enqueue(i, n.disk, p.computer, true);
          break;
        case Phase::kCompute:
          if (p.done_in_phase == 0 && p.mi > 0) {
            p.done_in_phase = 1;
            p.b.cpu_s = unimpp::te(p.mi, c.mips);  // eq. 2
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

  void finish_phase(std::uint32_t i) {
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
    set_memory(p.computer, std::max(0.0, load_[p.computer].occupied_mb - p.memory_mb));
    double response = p.finish_s - p.arrival_s;  // eq. 8: SL, measured from arrival
    auto& b = p.b;
    b.waiting_s = std::max(0.0, response - (b.cpu_s + b.memory_s + b.disk_s + b.network_s + b.sleep_s));
    ++finished_;
  }

  // --- FIFO servers: disk (eq. 4-5) and network interface (eq. 6-7) ---
  void enqueue(std::uint32_t i, Server& s, std::uint32_t c, bool disk) {
    s.waiting.emplace(i, now_);
    if (!s.busy) serve_next(c, s, disk);
  }

  void serve_next(std::uint32_t c, Server& s, bool disk) {
    if (s.waiting.empty()) {
      s.busy = false;
      return;
    }
    auto [i, since] = s.waiting.front();
    s.waiting.pop();
    s.busy = true;
    s.serving = i;
    Proc& p = procs_[i];
    const Computer& comp = profile_.computers[c];
    double service;
    if (disk) {
      bool reading = p.phase == Phase::kRead;
      double bytes = reading ? p.read_bytes : p.write_bytes;
      service = bytes / (reading ? comp.disk_read_bytes_per_s : comp.disk_write_bytes_per_s);  // eq. 4 / 5
      p.b.disk_s += service;
    } else {
      service = unimpp::message_time(comp.overhead_latency_s, p.message_bytes, profile_.network.bandwidth_bytes_per_s);
      p.b.network_s += service;  // θ of eq. 6-7
    }
    (void)since;  // the wait (now - since) is part of waiting_s
    queue_.schedule(now_ + service, disk ? kDiskDone : kNetDone, c);
  }

  void server_done(std::uint32_t c, Server& s, bool disk) {
    std::uint32_t i = s.serving;
    serve_next(c, s, disk);
    Proc& p = procs_[i];
    ++p.done_in_phase;
    step(i);
  }

  // --- processor sharing with memory slowdown (eq. 2-3) ---
  void advance(std::uint32_t c) {
    Node& n = nodes_[c];
    double dt = now_ - n.last;
    if (dt > 0 && !n.computing.empty()) {
      n.v += n.rate * dt;
      n.m += n.rate * n.alpha * dt;
      n.busy_s += dt;
    }
    n.last = now_;
  }

  // Recomputes the per-process rate and schedules the next completion.
  void reschedule(std::uint32_t c) {
    Node& n = nodes_[c];
    const Computer& comp = profile_.computers[c];
    ++n.stamp;
    if (n.computing.empty()) return;
    double count = static_cast<double>(n.computing.size());
    n.alpha = comp.alpha(load_[c].occupied_mb);
    n.rate = comp.mips * std::min(1.0, comp.cores / count) / (1 + n.alpha);
    double remaining = std::max(0.0, n.computing.top().first - n.v);
    queue_.schedule(now_ + remaining / n.rate, kComputeDone, c, n.stamp);
  }

  void set_memory(std::uint32_t c, double occupied_mb) {
    Node& n = nodes_[c];
    advance(c);
    load_[c].occupied_mb = occupied_mb;
    n.peak_memory_mb = std::max(n.peak_memory_mb, occupied_mb);
    if (!n.computing.empty()) reschedule(c);
  }

  void start_compute(std::uint32_t i) {
    Proc& p = procs_[i];
    Node& n = nodes_[p.computer];
    advance(p.computer);
    p.v_start = n.v;
    p.m_start = n.m;
    n.computing.emplace(n.v + p.mi, i);
    ++load_[p.computer].computing;
    reschedule(p.computer);
  }

  void compute_done(std::uint32_t c) {
    Node& n = nodes_[c];
    advance(c);
    const Computer& comp = profile_.computers[c];
    // Everyone whose work is done (within rounding) leaves the processor together.
    std::vector<std::uint32_t> done;
    while (!n.computing.empty() && n.computing.top().first <= n.v * (1 + 1e-12) + 1e-12) {
      done.push_back(n.computing.top().second);
      n.computing.pop();
      --load_[c].computing;
    }
    reschedule(c);
    for (std::uint32_t i : done) {
      Proc& p = procs_[i];
      p.b.memory_s = (n.m - p.m_start) / comp.mips;  // TEM - TE (eq. 3) accumulated under changing α
      finish_phase(i);
    }
  }

  Prediction result() {
    HETPERF_CHECK(finished_ == procs_.size(), "simulation ended with unfinished processes");
    Prediction out;
    out.hetperf_version = kVersion;
    out.workload_name = workload_.name;
    out.seed = seed_;
    out.placement = placement_name_;
    out.processes.reserve(procs_.size());
    for (const Proc& p : procs_) {
      out.processes.push_back({p.name, profile_.computers[p.computer].name, p.arrival_s, p.start_s, p.finish_s,
                               p.finish_s - p.arrival_s, p.b});
    }
    out.summary = summarize_responses(out.processes);
    out.summary.events = events_;
    for (std::size_t c = 0; c < nodes_.size(); ++c) {
      const Node& n = nodes_[c];
      double util = out.summary.makespan_s > 0 ? std::min(1.0, n.busy_s / out.summary.makespan_s) : 0;
      out.computers.push_back({profile_.computers[c].name, n.busy_s, util, n.peak_memory_mb, n.placed});
    }
    return out;
  }

  const Profile& profile_;
  const Workload& workload_;
  std::string file_;
  std::uint64_t seed_;
  Rng rng_;
  std::string placement_name_;
  std::unique_ptr<PlacementPolicy> policy_;
  std::vector<Node> nodes_;
  std::vector<ComputerLoad> load_;  // what placement policies see, kept current
  std::vector<Proc> procs_;
  EventQueue queue_;
  double now_ = 0, max_memory_mb_ = 0;
  std::uint64_t events_ = 0;
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
