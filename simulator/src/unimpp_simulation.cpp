// UniMPP simulation (UniMPP paper section 2) as a thin model over the engine's shared resources: each
// computer is a Processor (processor sharing or FIFO over its cores, slowed by the memory slowdown α of
// eq. 2-3) and a FifoDisk (eq. 4-5); all of them hang on one StarNetwork (DPS paper section 4). This
// file holds only what is UniMPP's own: the process life cycle, placement, the load balancer (eq. 9),
// the breakdown of eq. 8 and the timelines.
//
// A message (eq. 6-7, θ = 2o + l): the sender's processor packs it (o of CPU work), the network carries
// it (latency l, then the bytes at the shared bandwidth), the receiver's processor unpacks it (o). o is
// the computer's overhead, (lo − l) / 2 with lo its measured `overhead_latency_s` and l the network's
// latency; at an end outside the cluster o is a plain delay.
#include "hetperf/simulator/unimpp_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <limits>
#include <memory>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/version.hpp"
#include "hetperf/simulator/engine/engine.hpp"
#include "hetperf/simulator/placement.hpp"
#include "hetperf/simulator/resources/fifo_disk.hpp"
#include "hetperf/simulator/resources/processor.hpp"
#include "hetperf/simulator/resources/star_network.hpp"
#include "timelines.hpp"

namespace hetperf::sim {
namespace {

// Keys of the model's own events: kind in the high bits, process index below.
enum EventKind : std::uint64_t { kArrival, kSleepDone, kBalance, kMigrated, kOverheadDelay, kAdmit, kDrawnArrival };
constexpr std::uint64_t key(EventKind kind, std::uint32_t proc) { return (std::uint64_t{kind} << 32) | proc; }

// Processor tokens: a process's compute phase, or the o of one of its messages (bit 31).
constexpr std::uint32_t kOverheadBit = 1u << 31;
constexpr std::uint32_t kMaxProcesses = kOverheadBit - 1;

// The operations of a process, in order (workload.hpp): receive, read, compute, write, send, sleep.
enum class Phase : std::uint8_t { kReceive, kRead, kCompute, kWrite, kSend, kSleep, kDone };
// Where a message is: the first o, the wire, the second o (receive: the peer's, then ours).
enum class MessageStage : std::uint8_t { kFirstOverhead, kWire, kSecondOverhead };

constexpr std::int32_t kNone = -1;
// Beyond these a figure is not a prediction but a sign of a wrong input: about 31,700 years, and a
// process slowed a billion times by memory.
constexpr double kImplausibleS = 1e12;
constexpr double kImplausibleAlpha = 1e9;
// Disk operations and messages a run may simulate, one event or more each: at a few million events a
// second, beyond this a run takes longer than anyone waits for a prediction.
constexpr double kMaxOperations = 2e8;

// One process instance. Its name is generated only for the output (spec + instance number).
struct Proc {
  double arrival_s = 0, start_s = 0, finish_s = 0;
  double mi = 0, memory_mb = 0, read_bytes = 0, write_bytes = 0, receive_bytes = 0, send_bytes = 0, sleep_s = 0;
  double remaining_mi = 0;    // work still to do when the present compute stay started
  double segment_from_s = 0;  // start of its present stay (eq. 9), for migrated processes
  ResponseBreakdown b;
  std::uint32_t spec = 0, instance = 0;  // instance 0: the spec's only copy (no "-k" suffix)
  std::int32_t pinned = kNone;
  std::int32_t peer = kNone;            // kNone, a computer index, or computers + process index
  std::int32_t message_other = kNone;   // the other end of the message under way
  std::uint32_t overhead_computer = 0;  // where its o is being worked off
  std::uint32_t computer = 0;
  std::uint32_t reads = 0, writes = 0, receives = 0, sends = 0, done_in_phase = 0;
  Processor::Client client = 0;  // while computing
  Phase phase = Phase::kReceive;
  MessageStage stage = MessageStage::kFirstOverhead;
  bool computing = false, placed = false, migrated = false;
};

struct Node {
  std::unique_ptr<Processor> processor;
  std::unique_ptr<FifoDisk> disk;
  double overhead_s = 0;  // o of eq. 7
  double peak_memory_mb = 0;
  std::size_t placed = 0;
  double last_sample_s = 0, busy_cores = 0;  // timeline: since the last sample
  // Processes placed here that do not fit beside those resident (mm + vm), in arrival order.
  std::deque<std::uint32_t> admission;
  bool admit_pending = false;
};

// The placement policy draws from a stream of its own, so that drawing processes as they arrive does
// not interleave its draws with theirs: seeded from the workload's seed by one splitmix64 step.
std::uint64_t placement_seed(std::uint64_t seed) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint32_t round_count(double x) { return static_cast<std::uint32_t>(std::llround(std::clamp(x, 0.0, 4.0e9))); }

Discipline discipline_of(const DisciplineSpec& spec, const Computer& c) {
  std::string chosen = spec.default_discipline;
  for (const auto& [name, d] : spec.by_name) {
    if (name == c.group && !c.group.empty()) chosen = d;
  }
  for (const auto& [name, d] : spec.by_name) {
    if (name == c.name) chosen = d;
  }
  return chosen == "fifo" ? Discipline::kFifo : Discipline::kProcessorSharing;
}

class Simulation final : public Handler, public ProcessorListener, public DiskListener, public NetworkListener {
 public:
  Simulation(const Profile& profile, const Workload& workload, const Binding& binding, const std::string& file,
             const SimulationOptions& opt)
      : profile_(profile),
        workload_(workload),
        binding_(binding),
        file_(file),
        options_(opt),
        seed_(opt.seed.value_or(workload.seed)),
        rng_(seed_),
        placement_rng_(placement_seed(seed_)),
        timelines_(profile.computers.size(), opt.timeline_points) {
    placement_name_ = opt.placement.value_or(workload.policy.placement);
    try {
      policy_ = make_placement(placement_name_, workload.policy.options);
    } catch (const InputError& e) {
      throw InputError((opt.placement ? std::string("--policy") : file_ + ": $.policy.placement") + ": " + e.what());
    }
    HETPERF_CHECK(binding.processes.size() == workload.processes.size() &&
                      binding.generators.size() == workload.generators.size(),
                  "the binding is not of this workload");
    std::size_t n = profile.computers.size();
    nodes_.resize(n);
    load_.resize(n);
    std::vector<double> bandwidth(n, profile.network.bandwidth_bytes_per_s);
    // A partial profile without a network: bind() let no process that sends messages through.
    if (profile.network.bandwidth_bytes_per_s > 0) network_ = std::make_unique<StarNetwork>(engine_, *this, bandwidth);
    latency_ = Duration(profile.network.latency_s);
    for (std::size_t c = 0; c < n; ++c) {
      const Computer& comp = profile.computers[c];
      Node& node = nodes_[c];
      node.processor = std::make_unique<Processor>(
          engine_, *this, ProcessorSpec{comp.cores, comp.mips, 1.0, discipline_of(workload.policy.discipline, comp)});
      node.disk = std::make_unique<FifoDisk>(engine_, *this);
      node.overhead_s = std::max(0.0, (comp.overhead_latency_s - profile.network.latency_s) / 2);
      max_memory_mb_ = std::max(max_memory_mb_, comp.main_memory_mb + comp.virtual_memory_mb);
      communication_costs_cpu_ |= comp.cpu_share_per_send > 0 || comp.cpu_share_per_receive > 0;
    }
    fastest_ = fastest();
    instantiate();
  }

  Prediction run() {
    if (const auto first = next_arrival_time()) {
      schedule_next_arrival();
      if (workload_.policy.load_balancer) {
        engine_.at(Time(*first + workload_.policy.load_balancer->period_s), *this, key(kBalance, 0));
      }
    }
    engine_.run();
    return result();
  }

  void fire(std::uint64_t k) override {
    const auto i = static_cast<std::uint32_t>(k);
    switch (static_cast<EventKind>(k >> 32)) {
      case kArrival:
        arrive(i);
        break;
      case kSleepDone:
        next_phase(i);
        break;
      case kBalance:
        balance();
        break;
      case kMigrated:
        start_compute(i);
        break;
      case kOverheadDelay:
        message_step(i);
        break;
      case kAdmit:
        admit_waiting(i);
        break;
      case kDrawnArrival:
        arrive(draw_next());
        break;
    }
  }

 private:
  double now() const { return engine_.now().s(); }

  // --- instantiation: every process drawn up front, in file order, from the one seeded stream ---
  [[noreturn]] void fail(std::size_t spec, const std::string& field, const std::string& what) const {
    throw InputError(file_ + ": " + spec_path(spec) + field + ": " + what);
  }
  std::string spec_path(std::size_t spec) const {
    return spec < workload_.processes.size()
               ? workload_.processes[spec].json_path
               : workload_.generators[spec - workload_.processes.size()].json_path + ".process";
  }
  const ProcessSpec& spec_of(std::size_t spec) const {
    return spec < workload_.processes.size() ? workload_.processes[spec]
                                             : workload_.generators[spec - workload_.processes.size()].process;
  }

  // bind()'s pin and peer as the simulation numbers them: a computer index, or computers + the index
  // of a process listed once among all instances; kNone when absent.
  std::int32_t pin_of(const BoundProcess& b) const {
    return b.computer ? static_cast<std::int32_t>(*b.computer) : kNone;
  }
  std::int32_t peer_of(const BoundProcess& b) const {
    if (!b.peer) return kNone;
    if (b.peer->kind == PeerRef::Kind::kComputer) return static_cast<std::int32_t>(b.peer->index);
    return static_cast<std::int32_t>(profile_.computers.size() + first_instance_[b.peer->index]);
  }

  // What bounds a process's times from below on one computer, or on the fastest of all (each figure the
  // best any computer has).
  struct Figures {
    double mips = 0, read_bytes_per_s = 0, write_bytes_per_s = 0, overhead_s = std::numeric_limits<double>::infinity();
  };
  Figures figures_of(std::size_t c) const {
    const Computer& comp = profile_.computers[c];
    return {comp.mips, comp.disk_read_bytes_per_s, comp.disk_write_bytes_per_s, nodes_[c].overhead_s};
  }
  Figures fastest() const {
    Figures best;
    for (std::size_t c = 0; c < profile_.computers.size(); ++c) {
      const Figures f = figures_of(c);
      best = {std::max(best.mips, f.mips), std::max(best.read_bytes_per_s, f.read_bytes_per_s),
              std::max(best.write_bytes_per_s, f.write_bytes_per_s), std::min(best.overhead_s, f.overhead_s)};
    }
    return best;
  }

  // One figure of a process, drawn: a finite number >= 0, else the field is named (a distribution whose
  // parameters are extreme, a Weibull shape of 1e-300, draws infinities).
  double draw(const Distribution& d, std::size_t spec, const char* field) {
    const double v = d.sample(rng_);
    if (!std::isfinite(v)) {
      fail(spec, field,
           "drew " + csv_number(v) +
               ", expected a finite number (the distribution's parameters are "
               "beyond what a double can draw from)");
    }
    return std::max(0.0, v);
  }
  std::uint32_t draw_count(const Distribution& d, std::size_t spec, const char* field) {
    const double v = draw(d, spec, field);
    operations_ += std::round(v);
    if (v > kMaxOperations || operations_ > kMaxOperations) {
      fail(spec, field,
           "the run would simulate " + csv_number(std::max(v, operations_)) +
               " disk operations and messages or more, beyond the " + csv_number(kMaxOperations) +
               " a run may simulate one by one; expected fewer, larger operations");
    }
    return round_count(v);
  }

  // The least time each part of a drawn process can take, on the fastest computer it may run on (or on
  // computer `on`, where it was placed), is within kImplausibleS: checked before its first event, and
  // again once placed, so that no run spins through a time no prediction means and no infinite work
  // reaches a processor.
  void check_plausible(const Proc& p, std::size_t spec, std::int32_t on = kNone) const {
    const std::int32_t only = on != kNone ? on : p.pinned;
    const Figures f = only >= 0 ? figures_of(static_cast<std::size_t>(only)) : fastest_;
    const double mips = f.mips, read = f.read_bytes_per_s, write = f.write_bytes_per_s, overhead_s = f.overhead_s;
    const auto per = [](double amount, double rate) { return amount > 0 ? amount / rate : 0.0; };
    const auto times = [](std::uint32_t n, double each_s) { return n == 0 ? 0.0 : static_cast<double>(n) * each_s; };
    // Messages to a process peer may stay on one computer, off the network: not counted.
    const bool on_network = p.peer == kNone || static_cast<std::size_t>(p.peer) < nodes_.size();
    const double bytes = std::min(p.receive_bytes, p.send_bytes);
    // θ = 2o + l (eq. 7) with its own computer's o at least once, and the bytes at full bandwidth.
    const double message_s =
        network_ ? overhead_s + profile_.network.latency_s + per(bytes, profile_.network.bandwidth_bytes_per_s) : 0.0;
    const struct {
      const char* field;
      double s;
      const char* figures;
    } parts[] = {
        {".mi", per(p.mi, mips), "its MI at the mips"},
        {".disk_read", times(p.reads, per(p.read_bytes, read)), "its reads at the disk_read_bytes_per_s"},
        {".disk_write", times(p.writes, per(p.write_bytes, write)), "its writes at the disk_write_bytes_per_s"},
        {".messages", on_network ? times(p.receives + p.sends, message_s) : 0.0,
         "its messages at the network's latency_s and bandwidth_bytes_per_s and the overhead_latency_s"},
        {".sleep_s", p.sleep_s, "its sleep"},
    };
    for (const auto& part : parts) {
      if (!(part.s <= kImplausibleS)) {
        const bool profile_figures = part.field != std::string_view(".sleep_s");
        const std::string where = only >= 0
                                      ? " of computer '" + profile_.computers[static_cast<std::size_t>(only)].name + "'"
                                      : " of the fastest computer";
        fail(spec, part.field,
             std::string(part.figures) +
                 (profile_figures ? where + (profile_.file.empty() ? "" : " (" + profile_.file + ")") : "") +
                 " would take " + csv_number(part.s) + " s, beyond any plausible time (" + csv_number(kImplausibleS) +
                 " s); expected smaller sizes or faster figures");
      }
    }
  }

  // An arrival past kImplausibleS means no time a prediction could (a double's step at 1e16 s is 2 s: a
  // response of one second there reads 0). The field is the one that put it there.
  [[noreturn]] void fail_arrival(const Proc& p) const {
    const std::size_t spec = p.spec;
    const bool generated = spec >= workload_.processes.size();
    const std::string field = generated ? workload_.generators[spec - workload_.processes.size()].json_path +
                                              (p.instance <= 1 ? ".start_s" : ".interarrival_s")
                                        : workload_.processes[spec].json_path + ".arrival_s";
    throw InputError(file_ + ": " + field + ": process " + name_of(p) + " would arrive at " + csv_number(p.arrival_s) +
                     " s, beyond any plausible time (" + csv_number(kImplausibleS) +
                     " s); expected an earlier start or shorter inter-arrival times");
  }

  // Draws a process instance and returns its index: a new slot, or (drawn as it arrives, results not
  // kept) the slot of a finished one.
  std::uint32_t add(const ProcessSpec& s, std::size_t spec, std::uint32_t instance, double arrival, std::int32_t pinned,
                    std::int32_t peer, bool reusable = false) {
    if (created_ >= kMaxProcesses)
      fail(spec, "", "more than " + std::to_string(kMaxProcesses) + " processes in one run");
    ++created_;
    Proc p;
    p.spec = static_cast<std::uint32_t>(spec);
    p.instance = instance;
    p.arrival_s = arrival;
    p.pinned = pinned;
    p.peer = peer;
    p.mi = draw(s.mi, spec, ".mi");
    p.remaining_mi = p.mi;
    p.memory_mb =
        draw(s.static_memory_mb, spec, ".static_memory_mb") + draw(s.dynamic_memory_mb, spec, ".dynamic_memory_mb");
    p.reads = draw_count(s.disk_read_ops, spec, ".disk_read.ops");
    p.read_bytes = draw(s.disk_read_bytes, spec, ".disk_read.bytes_per_op");
    p.writes = draw_count(s.disk_write_ops, spec, ".disk_write.ops");
    p.write_bytes = draw(s.disk_write_bytes, spec, ".disk_write.bytes_per_op");
    std::uint32_t messages = draw_count(s.messages, spec, ".messages.count");
    p.receives = (messages + 1) / 2;
    p.sends = messages / 2;
    p.receive_bytes = p.send_bytes = draw(s.message_bytes, spec, ".messages.bytes");
    // Drawn only when given, so that files without them keep their streams of draws.
    if (s.receive_bytes) p.receive_bytes = draw(*s.receive_bytes, spec, ".messages.receive_bytes");
    if (s.send_bytes) p.send_bytes = draw(*s.send_bytes, spec, ".messages.send_bytes");
    p.sleep_s = draw(s.sleep_s, spec, ".sleep_s");
    if (!(arrival <= kImplausibleS)) fail_arrival(p);
    check_plausible(p, spec);
    double limit = pinned >= 0 ? profile_.computers[static_cast<std::size_t>(pinned)].main_memory_mb +
                                     profile_.computers[static_cast<std::size_t>(pinned)].virtual_memory_mb
                               : max_memory_mb_;
    if (p.memory_mb > limit) {
      fail(spec, ".static_memory_mb",
           "process needs " + csv_number(p.memory_mb) + " MB (static plus dynamic memory) but " +
               (pinned >= 0 ? "computer '" + profile_.computers[static_cast<std::size_t>(pinned)].name + "' has only "
                            : std::string("the largest computer has ")) +
               csv_number(limit) + " MB of main plus virtual memory");
    }
    if (reusable && !free_slots_.empty()) {
      const std::uint32_t slot = free_slots_.back();
      free_slots_.pop_back();
      procs_[slot] = p;
      drawn_slot_[slot] = true;
      return slot;
    }
    procs_.push_back(p);
    drawn_slot_.push_back(reusable);
    return static_cast<std::uint32_t>(procs_.size() - 1);
  }

  // Every process is drawn, in file order, from the one seeded stream: the listed processes, then each
  // generator's in turn. The last generator's draws come last, so its processes are drawn as they
  // arrive (memory then grows with the processes alive, not with all of them) and the stream of
  // draws is the same as drawing everything up front.
  void instantiate() {
    std::size_t total = 0;
    for (const auto& s : workload_.processes) total += static_cast<std::size_t>(s.count);
    for (std::size_t g = 0; g + 1 < workload_.generators.size(); ++g) {
      total += workload_.generators[g].count ? static_cast<std::size_t>(*workload_.generators[g].count) : 0;
    }
    procs_.reserve(total);
    std::size_t first = 0;
    for (const ProcessSpec& s : workload_.processes) {
      first_instance_.push_back(first);
      first += static_cast<std::size_t>(s.count);
    }
    for (std::size_t i = 0; i < workload_.processes.size(); ++i) {
      const ProcessSpec& s = workload_.processes[i];
      std::int32_t pin = pin_of(binding_.processes[i]), peer = peer_of(binding_.processes[i]);
      for (std::int64_t k = 1; k <= s.count; ++k) {
        add(s, i, s.count > 1 ? static_cast<std::uint32_t>(k) : 0, s.arrival_s, pin, peer);
      }
    }
    for (std::size_t g = 0; g < workload_.generators.size(); ++g) {
      const ArrivalGenerator& gen = workload_.generators[g];
      std::size_t spec = workload_.processes.size() + g;
      std::int32_t pin = pin_of(binding_.generators[g]), peer = peer_of(binding_.generators[g]);
      first_generated_.push_back(created_);
      if (g + 1 == workload_.generators.size()) {
        drawn_ = {true, g, 1, gen.start_s, pin, peer};
        end_of_stream();
        break;
      }
      double t = gen.start_s;
      for (std::int64_t k = 1;; ++k) {
        if (gen.count && k > *gen.count) break;
        if (gen.horizon_s && t > *gen.horizon_s) break;
        add(gen.process, spec, static_cast<std::uint32_t>(k), t, pin, peer);
        t += std::max(0.0, gen.interarrival_s.sample(rng_));
      }
    }
    if (drawn_.active && workload_.generators[drawn_.generator].count) {
      // Kept results need every process; the summary every response time.
      const auto all = total + static_cast<std::size_t>(*workload_.generators[drawn_.generator].count);
      if (options_.keep_processes)
        procs_.reserve(all);
      else
        responses_.reserve(all);
    }
    // Arrival order: by time, ties by definition order. Arrivals enter the event queue one at a time.
    order_.resize(procs_.size());
    for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](auto x, auto y) { return procs_[x].arrival_s < procs_[y].arrival_s; });
  }

  // The generator drawn as it goes ends at its count or past its horizon.
  void end_of_stream() {
    const ArrivalGenerator& gen = workload_.generators[drawn_.generator];
    if ((gen.count && drawn_.k > *gen.count) || (gen.horizon_s && drawn_.t > *gen.horizon_s)) drawn_.active = false;
  }

  // Draws the generator's next process (its figures, then the gap to the one after), as the loop of
  // instantiate() would have.
  std::uint32_t draw_next() {
    const ArrivalGenerator& gen = workload_.generators[drawn_.generator];
    const std::uint32_t i =
        add(gen.process, workload_.processes.size() + drawn_.generator, static_cast<std::uint32_t>(drawn_.k), drawn_.t,
            drawn_.pin, drawn_.peer, !options_.keep_processes);
    drawn_.t += std::max(0.0, gen.interarrival_s.sample(rng_));
    ++drawn_.k;
    end_of_stream();
    return i;
  }

  // The time of the next arrival, listed or drawn; nullopt when none is left.
  std::optional<double> next_arrival_time() const {
    std::optional<double> t;
    if (next_arrival_ < order_.size()) t = procs_[order_[next_arrival_]].arrival_s;
    if (drawn_.active && (!t || drawn_.t < *t)) t = drawn_.t;
    return t;
  }

  // Schedules the next arrival; at equal times the process drawn up front first (it comes first in
  // the file: the generator drawn as it goes is the last).
  void schedule_next_arrival() {
    const bool listed = next_arrival_ < order_.size();
    if (listed && (!drawn_.active || procs_[order_[next_arrival_]].arrival_s <= drawn_.t)) {
      engine_.at(Time(procs_[order_[next_arrival_]].arrival_s), *this, key(kArrival, order_[next_arrival_]));
      ++next_arrival_;
    } else if (drawn_.active) {
      engine_.at(Time(drawn_.t), *this, key(kDrawnArrival, 0));
    }
  }

  bool all_done() const { return finished_ == created_ && !next_arrival_time(); }

  // --- process life cycle ---
  void arrive(std::uint32_t i) {
    schedule_next_arrival();
    Proc& p = procs_[i];
    std::size_t c = p.pinned >= 0 ? static_cast<std::size_t>(p.pinned)
                                  : policy_->place(profile_.computers, load_, {i, p.memory_mb, p.mi}, placement_rng_);
    HETPERF_CHECK(c < nodes_.size(), "placement policy returned an invalid computer");
    const Computer& comp = profile_.computers[c];
    if (p.memory_mb > comp.main_memory_mb + comp.virtual_memory_mb) {
      fail(p.spec, ".static_memory_mb",
           "process " + name_of(p) + " was placed on '" + comp.name + "' by policy '" + placement_name_ +
               "' but needs more than its main plus virtual memory");
    }
    check_plausible(p, p.spec, static_cast<std::int32_t>(c));
    p.computer = static_cast<std::uint32_t>(c);
    p.placed = true;
    ++nodes_[c].placed;
    ++load_[c].resident;
    policy_->resident_changed(profile_.computers, load_, c);
    Node& node = nodes_[c];
    if (!node.admission.empty() || load_[c].occupied_mb + p.memory_mb > comp.main_memory_mb + comp.virtual_memory_mb) {
      node.admission.push_back(i);  // waits for memory; the wait is part of its waiting time
      return;
    }
    admit(i);
  }

  // Process i holds its memory on its computer from now and starts its first phase.
  void admit(std::uint32_t i) {
    Proc& p = procs_[i];
    p.start_s = now();
    p.segment_from_s = now();
    set_memory(p.computer, load_[p.computer].occupied_mb + p.memory_mb);
    p.phase = Phase::kReceive;
    p.done_in_phase = 0;
    step(i);
  }

  // Memory was released on computer c: admit the processes waiting there that now fit, in order (at
  // once but as an event of its own, so that a long chain of admissions never nests).
  void memory_released(std::uint32_t c) {
    Node& node = nodes_[c];
    if (node.admission.empty() || node.admit_pending) return;
    node.admit_pending = true;
    engine_.at(engine_.now(), *this, key(kAdmit, c));
  }

  void admit_waiting(std::uint32_t c) {
    Node& node = nodes_[c];
    node.admit_pending = false;
    const Computer& comp = profile_.computers[c];
    while (!node.admission.empty() && load_[c].occupied_mb + procs_[node.admission.front()].memory_mb <=
                                          comp.main_memory_mb + comp.virtual_memory_mb) {
      const std::uint32_t i = node.admission.front();
      node.admission.pop_front();
      admit(i);
    }
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
            // A message to a process on the same computer does not use the network (UniMPP paper eq. 9 note).
            if (other != static_cast<std::int32_t>(p.computer)) return start_message(i, other);
            p.done_in_phase = total;
          }
          break;
        }
        case Phase::kRead:
        case Phase::kWrite:
          if (p.done_in_phase < (p.phase == Phase::kRead ? p.reads : p.writes)) return submit_disk(i);
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
            engine_.after(Duration(p.sleep_s), *this, key(kSleepDone, i));
            return;
          }
          break;
        case Phase::kDone:
          return;
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
    p.finish_s = now();
    --load_[p.computer].resident;
    policy_->resident_changed(profile_.computers, load_, p.computer);
    set_memory(p.computer, std::max(0.0, load_[p.computer].occupied_mb - p.memory_mb));
    memory_released(p.computer);
    if (p.migrated) segments_.push_back({i, p.computer, p.segment_from_s, now()});
    double response = p.finish_s - p.arrival_s;  // eq. 8 (eq. 9 when migrated): SL, measured from arrival
    auto& b = p.b;
    b.waiting_s = std::max(0.0, response - (b.cpu_s + b.memory_s + b.disk_s + b.network_s + b.sleep_s + b.migration_s));
    ++finished_;
    if (!std::isfinite(response) || response > kImplausibleS) {
      fail(p.spec, "",
           "process " + name_of(p) + " on computer '" + profile_.computers[p.computer].name + "' would take " +
               csv_number(response) + " s, beyond any plausible time (" + csv_number(kImplausibleS) +
               " s); expected smaller sizes or faster figures in the profile");
    }
    if (options_.on_process) options_.on_process(result_of(i), index_of(p));
    if (!options_.keep_processes) {
      responses_.push_back(response);
      first_arrival_s_ = std::min(first_arrival_s_, p.arrival_s);
      last_finish_s_ = std::max(last_finish_s_, p.finish_s);
      if (p.migrated)
        segments_.erase(
            std::remove_if(segments_.begin(), segments_.end(), [&](const Segment& g) { return g.proc == i; }),
            segments_.end());
      // Nothing refers to a process drawn as it arrived once it is done (message peers are listed
      // processes): its slot takes the next one.
      if (drawn_slot_[i]) free_slots_.push_back(i);
    }
  }

  // The process's place in definition order: its spec's first, plus its instance.
  std::uint64_t index_of(const Proc& p) const {
    const std::size_t listed = workload_.processes.size();
    return (p.spec < listed ? first_instance_[p.spec] : first_generated_[p.spec - listed]) +
           (p.instance == 0 ? 0 : p.instance - 1);
  }

  ProcessResult result_of(std::uint32_t i) const {
    const Proc& p = procs_[i];
    ProcessResult r{name_of(p),  profile_.computers[p.computer].name,
                    p.arrival_s, p.start_s,
                    p.finish_s,  p.finish_s - p.arrival_s,
                    p.b,         {}};
    if (p.migrated) {
      for (const Segment& g : segments_) {
        if (g.proc == i) r.segments.push_back({profile_.computers[g.computer].name, g.from_s, g.to_s});
      }
    }
    return r;
  }

  // --- disk: the computer's FIFO server (eq. 4-5) ---
  void submit_disk(std::uint32_t i) {
    Proc& p = procs_[i];
    const Computer& comp = profile_.computers[p.computer];
    const bool reading = p.phase == Phase::kRead;
    const double service = reading ? p.read_bytes / comp.disk_read_bytes_per_s     // eq. 4: bsize / dr
                                   : p.write_bytes / comp.disk_write_bytes_per_s;  // eq. 5: bsize / dw
    p.b.disk_s += service;  // the time queued before (wtdr, wtdw) is part of waiting_s
    nodes_[p.computer].disk->submit(Duration(service), i);
  }

  void served(std::uint32_t i) override {
    ++procs_[i].done_in_phase;
    step(i);
  }

  // --- messages: o, the wire, o (eq. 6-7) ---
  std::int32_t peer_computer(const Proc& p) const {
    if (p.peer == kNone) return kNone;
    std::size_t computers = nodes_.size();
    if (static_cast<std::size_t>(p.peer) < computers) return p.peer;
    const Proc& q = procs_[static_cast<std::size_t>(p.peer) - computers];
    // A peer that has not arrived yet is reached where it is pinned, else outside the cluster.
    return q.placed ? static_cast<std::int32_t>(q.computer) : q.pinned;
  }

  double overhead_at(std::int32_t computer, const Proc& p) const {
    // Outside the cluster the other end is taken to be like this process's computer.
    return nodes_[computer >= 0 ? static_cast<std::size_t>(computer) : p.computer].overhead_s;
  }

  void start_message(std::uint32_t i, std::int32_t other) {
    Proc& p = procs_[i];
    const bool sending = p.phase == Phase::kSend;
    const double bytes = sending ? p.send_bytes : p.receive_bytes;
    // θ = 2o + l (eq. 7) and the bytes at full bandwidth; sharing and queueing make the waiting.
    p.b.network_s += nodes_[p.computer].overhead_s + overhead_at(other, p) + profile_.network.latency_s +
                     bytes / profile_.network.bandwidth_bytes_per_s;
    p.message_other = other;
    p.stage = MessageStage::kFirstOverhead;
    run_overhead(i, sending ? static_cast<std::int32_t>(p.computer) : other);
  }

  // The o of one end: CPU work on that computer's processor, or a delay outside the cluster.
  void run_overhead(std::uint32_t i, std::int32_t computer) {
    const Proc& p = procs_[i];
    const double o = overhead_at(computer, p);
    if (o <= 0) return message_step(i);
    if (computer < 0) {
      engine_.after(Duration(o), *this, key(kOverheadDelay, i));
      return;
    }
    const auto c = static_cast<std::uint32_t>(computer);
    procs_[i].overhead_computer = c;
    nodes_[c].processor->start(i | kOverheadBit, o * profile_.computers[c].mips, WorkClass::kMessageOverhead);
    sample(c);
  }

  // The present stage of process i's message is done: on to the next.
  void message_step(std::uint32_t i) {
    Proc& p = procs_[i];
    const bool sending = p.phase == Phase::kSend;
    const auto self = static_cast<std::int32_t>(p.computer);
    switch (p.stage) {
      case MessageStage::kFirstOverhead:
        p.stage = MessageStage::kWire;
        HETPERF_CHECK(network_, "a message on a profile without a network (bind should have refused it)");
        network_->send(sending ? self : p.message_other, sending ? p.message_other : self,
                       sending ? p.send_bytes : p.receive_bytes, latency_, i);
        return;
      case MessageStage::kWire:
        p.stage = MessageStage::kSecondOverhead;
        return run_overhead(i, sending ? p.message_other : self);
      case MessageStage::kSecondOverhead:
        ++p.done_in_phase;
        return step(i);
    }
  }

  void delivered(std::uint32_t i) override { message_step(i); }

  // The CPU cost of communication (DPS paper section 4): each transfer streaming out of (into) a
  // computer takes the share per_send (per_receive) of its processing capacity.
  void link_load_changed(std::size_t c) override {
    if (!communication_costs_cpu_) return;
    nodes_[c].processor->set_free_share(cpu_free(c));
  }

  double cpu_free(std::size_t c) const {
    const Computer& comp = profile_.computers[c];
    if ((comp.cpu_share_per_send <= 0 && comp.cpu_share_per_receive <= 0) || !network_) return 1.0;
    return std::max(0.0, 1.0 - comp.cpu_share_per_send * static_cast<double>(network_->streaming_out(c)) -
                             comp.cpu_share_per_receive * static_cast<double>(network_->streaming_in(c)));
  }

  // --- compute: the computer's processor, slowed by α of the memory its residents hold (eq. 2-3) ---
  void set_memory(std::uint32_t c, double occupied_mb) {
    sample(c);
    load_[c].occupied_mb = occupied_mb;
    nodes_[c].peak_memory_mb = std::max(nodes_[c].peak_memory_mb, occupied_mb);
    const double alpha = profile_.computers[c].alpha(occupied_mb);
    if (!std::isfinite(alpha) || alpha > kImplausibleAlpha) {
      throw InputError((profile_.file.empty() ? std::string() : profile_.file + ": ") + "computer '" +
                       profile_.computers[c].name + "': its memory slowdown at " + csv_number(occupied_mb) +
                       " MB occupied is alpha = " + csv_number(alpha) +
                       " (UniMPP paper eq. 3), beyond any plausible slowdown; check the profile's slowdown function");
    }
    nodes_[c].processor->set_slowdown(alpha);
  }

  void start_compute(std::uint32_t i) {
    Proc& p = procs_[i];
    p.computing = true;
    ++load_[p.computer].computing;
    p.client = nodes_[p.computer].processor->start(i, p.remaining_mi);
    sample(p.computer);
  }

  void computed(std::uint32_t token, double slowdown_mi) override {
    const std::uint32_t i = token & ~kOverheadBit;
    Proc& p = procs_[i];
    if (token & kOverheadBit) {
      sample(p.overhead_computer);
      return message_step(i);
    }
    const Computer& comp = profile_.computers[p.computer];
    sample(p.computer);
    p.computing = false;
    --load_[p.computer].computing;
    p.b.cpu_s += p.remaining_mi / comp.mips;  // TE = mp / pc (eq. 2), summed over stays
    p.b.memory_s += slowdown_mi / comp.mips;  // TEM - TE (eq. 3) under changing α
    p.remaining_mi = 0;
    next_phase(i);
  }

  // --- the periodic load balancer (migration, eq. 9) ---
  // Time one more MI would take on computer c with `computing` processes and `occupied_mb` there.
  double time_per_mi(std::size_t c, std::size_t computing, double occupied_mb) const {
    const Computer& comp = profile_.computers[c];
    double capacity = comp.cores * comp.mips * cpu_free(c);
    if (capacity <= 0) return std::numeric_limits<double>::infinity();
    double rate = std::min(comp.mips, capacity / static_cast<double>(std::max<std::size_t>(computing, 1)));
    return (1 + comp.alpha(occupied_mb)) / rate;
  }

  void balance() {
    if (all_done()) return;  // nothing left to balance
    const LoadBalancerSpec& lb = *workload_.policy.load_balancer;
    for (std::int64_t k = 0; k < lb.max_migrations; ++k) {
      if (!migrate_one(lb)) break;
    }
    if (!all_done()) engine_.after(Duration(lb.period_s), *this, key(kBalance, 0));
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
    // The movable process with the most work left (pinned processes stay; the o of messages is no
    // process's compute phase).
    std::int64_t pick = -1;
    double most = 0;
    nodes_[src].processor->for_each_served([&](std::uint32_t token, Processor::Client, double left) {
      if ((token & kOverheadBit) || procs_[token].pinned >= 0) return;
      if (left > most || (left == most && pick >= 0 && token < pick)) most = left, pick = token;
    });
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
    Processor::Removed removed = nodes_[src].processor->remove(p.client);
    sample(static_cast<std::uint32_t>(src));
    p.computing = false;
    --load_[src].computing;
    p.b.cpu_s += (p.remaining_mi - removed.remaining_work) / from.mips;
    p.b.memory_s += removed.slowdown_work / from.mips;
    p.remaining_mi = removed.remaining_work;
    segments_.push_back({i, static_cast<std::uint32_t>(src), p.segment_from_s, now()});
    p.segment_from_s = now();
    p.migrated = true;
    --load_[src].resident;
    policy_->resident_changed(profile_.computers, load_, src);
    set_memory(static_cast<std::uint32_t>(src), std::max(0.0, load_[src].occupied_mb - p.memory_mb));
    memory_released(static_cast<std::uint32_t>(src));
    // The memory is held at the destination from the start of the move.
    p.computer = static_cast<std::uint32_t>(dst);
    ++load_[dst].resident;
    policy_->resident_changed(profile_.computers, load_, dst);
    set_memory(p.computer, load_[dst].occupied_mb + p.memory_mb);
    p.b.migration_s += lb.migration_cost_s;
    ++migrations_;
    engine_.after(Duration(lb.migration_cost_s), *this, key(kMigrated, i));
    return true;
  }

  // --- timelines (timelines.hpp) ---
  // Closes computer c's timeline up to now with the number of busy cores and the memory held since the
  // last sample, then notes the number now. Called after every change of the processor's clients
  // (those the model makes and the completions it is told of) and before every change of memory.
  void sample(std::uint32_t c) {
    Node& n = nodes_[c];
    const double t = now();
    if (timelines_.enabled() && t > n.last_sample_s && (n.busy_cores > 0 || load_[c].occupied_mb > 0)) {
      timelines_.record(c, n.last_sample_s, t, n.busy_cores / profile_.computers[c].cores, load_[c].occupied_mb);
    }
    n.last_sample_s = t;
    n.busy_cores =
        std::min(static_cast<double>(n.processor->served()), static_cast<double>(profile_.computers[c].cores));
  }

  // --- output ---
  std::string name_of(const Proc& p) const {
    const std::string& base = spec_of(p.spec).name;
    return p.instance == 0 ? base : base + "-" + std::to_string(p.instance);
  }

  Prediction result() {
    HETPERF_CHECK(all_done(), "simulation ended with unfinished processes");
    for (std::uint32_t c = 0; c < nodes_.size(); ++c) sample(c);  // closes the timelines
    Prediction out;
    out.hetperf_version = kVersion;
    out.workload_name = workload_.name;
    out.seed = seed_;
    out.placement = placement_name_;
    if (options_.keep_processes) {
      out.processes.reserve(procs_.size());
      for (const Proc& p : procs_) {
        out.processes.push_back({name_of(p),
                                 profile_.computers[p.computer].name,
                                 p.arrival_s,
                                 p.start_s,
                                 p.finish_s,
                                 p.finish_s - p.arrival_s,
                                 p.b,
                                 {}});
      }
      std::stable_sort(segments_.begin(), segments_.end(),
                       [](const Segment& x, const Segment& y) { return x.proc < y.proc; });
      for (const Segment& s : segments_) {
        out.processes[s.proc].segments.push_back({profile_.computers[s.computer].name, s.from_s, s.to_s});
      }
      out.summary = summarize_responses(out.processes);
    } else {
      out.summary = summarize_response_times(responses_, first_arrival_s_, last_finish_s_);
    }
    out.summary.events = engine_.events_fired();
    out.summary.migrations = migrations_;
    out.computers.reserve(nodes_.size());
    for (std::size_t c = 0; c < nodes_.size(); ++c) {
      const Node& n = nodes_[c];
      const double busy_s = nodes_[c].processor->busy_s();
      double util = out.summary.makespan_s > 0 ? std::min(1.0, busy_s / out.summary.makespan_s) : 0;
      out.computers.push_back(
          {profile_.computers[c].name, busy_s, util, n.peak_memory_mb, n.placed, timelines_.timeline(c, now())});
    }
    return out;
  }

  struct Segment {  // a finished stay of a migrated process (eq. 9)
    std::uint32_t proc, computer;
    double from_s, to_s;
  };

  const Profile& profile_;
  const Workload& workload_;
  const Binding& binding_;
  std::vector<std::size_t> first_instance_;     // per workload process: the index of its first instance
  std::vector<std::uint64_t> first_generated_;  // per generator: the index of its first process
  std::string file_;
  SimulationOptions options_;
  std::uint64_t seed_;
  Rng rng_;            // the processes' figures
  Rng placement_rng_;  // the placement policy's draws: a stream of its own
  detail::Timelines timelines_;
  std::string placement_name_;
  std::unique_ptr<PlacementPolicy> policy_;
  Engine engine_;
  std::unique_ptr<StarNetwork> network_;
  Duration latency_;
  std::vector<Node> nodes_;
  std::vector<ComputerLoad> load_;  // what placement policies see, kept current
  std::vector<Proc> procs_;
  std::vector<std::uint32_t> order_;  // processes drawn up front, by arrival
  std::size_t next_arrival_ = 0;
  // The last generator, drawn as its processes arrive: its next instance k arrives at t.
  struct DrawnStream {
    bool active = false;
    std::size_t generator = 0;
    std::int64_t k = 1;
    double t = 0;
    std::int32_t pin = kNone, peer = kNone;
  } drawn_;
  std::uint64_t created_ = 0;              // processes drawn so far
  double operations_ = 0;                  // disk operations and messages drawn so far
  Figures fastest_;                        // for check_plausible
  std::vector<bool> drawn_slot_;           // per slot: holds a process drawn as it arrived
  std::vector<std::uint32_t> free_slots_;  // slots of finished drawn processes (results not kept)
  std::vector<Segment> segments_;
  double max_memory_mb_ = 0;
  bool communication_costs_cpu_ = false;
  std::uint64_t migrations_ = 0;
  std::size_t finished_ = 0;
  // Without keep_processes: what the summary needs.
  std::vector<double> responses_;
  double first_arrival_s_ = std::numeric_limits<double>::infinity(), last_finish_s_ = 0;
};

}  // namespace

SimulationSize estimate_simulation_bytes(const Profile& profile, const Workload& workload,
                                         const SimulationOptions& options) {
  SimulationSize size;
  // A generator's processes: its count, else its horizon over the mean inter-arrival time.
  auto generated = [](const ArrivalGenerator& g) {
    if (g.count) return static_cast<double>(*g.count);
    if (!g.horizon_s) return 0.0;
    const double mean = g.interarrival_s.mean();
    return mean > 0 ? std::max(0.0, *g.horizon_s - g.start_s) / mean + 1 : 1e18;
  };
  double processes = 0;
  for (const auto& s : workload.processes) processes += static_cast<double>(s.count);
  for (const auto& g : workload.generators) processes += generated(g);
  size.processes = static_cast<std::uint64_t>(std::min(processes, 1e18));
  // Per process: its state and arrival slot, and its result (kept) or its response time (summary).
  // Without kept results, the last generator's processes are drawn as they arrive and their state is
  // reused once they finish: only the processes alive at once hold it, which no estimate before the
  // run can know (a run that outgrows memory still ends with one message).
  const double drawn =
      !options.keep_processes && !workload.generators.empty() ? generated(workload.generators.back()) : 0.0;
  const double per_process = (options.keep_processes ? sizeof(ProcessResult) + 64.0 : sizeof(double)) +
                             static_cast<double>(options.output_bytes_per_process);
  const double state = sizeof(Proc) + sizeof(std::uint32_t);
  const double process_bytes = processes * per_process + std::max(0.0, processes - drawn) * state;
  // Per computer: its resources and timeline.
  const double per_computer =
      sizeof(Node) + sizeof(Processor) + sizeof(FifoDisk) + 512.0 + 16.0 * static_cast<double>(options.timeline_points);
  size.bytes = static_cast<std::uint64_t>(
      std::min(process_bytes + static_cast<double>(profile.computers.size()) * per_computer, 1e18));
  return size;
}

Prediction simulate(const Profile& profile, const Workload& workload, const std::string& workload_file,
                    const SimulationOptions& options) {
  return simulate(profile, workload, bind(workload, profile), workload_file, options);
}

Prediction simulate(const Profile& profile, const Workload& workload, const Binding& binding,
                    const std::string& workload_file, const SimulationOptions& options) {
  if (options.max_memory_bytes > 0) {
    const SimulationSize size = estimate_simulation_bytes(profile, workload, options);
    if (size.bytes > options.max_memory_bytes) {
      auto gb = [](std::uint64_t b) {
        return std::to_string(static_cast<double>(b) / (1u << 30)).substr(0, 5) + " GiB";
      };
      throw InputError(workload_file + ": " + std::to_string(size.processes) + " processes would take about " +
                       gb(size.bytes) + " to simulate, more than the " + gb(options.max_memory_bytes) +
                       " allowed (the memory available, or --max-memory); simulate fewer processes (a smaller "
                       "count, or a shorter generator horizon), or keep only the summary (--summary-only)");
    }
  }
  Simulation s(profile, workload, binding, workload_file, options);
  Prediction p = s.run();
  p.workload_file = workload_file;
  return p;
}

}  // namespace hetperf::sim
