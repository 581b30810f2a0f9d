// A computer's processor as a shared resource: its cores serve the work of its clients (UniMPP
// processes, application ranks) either by processor sharing or run-to-completion FIFO.
//
// Processor sharing (UniMPP paper eq. 2-3, DPS paper section 4): n clients on c cores each get the rate
//     speed · min(1, c · free / (n + extra)) / (1 + α)
// where `speed` is one core's capacity (pc, MI/s; or 1 when work is counted in core-seconds), `free`
// the share of the capacity communication leaves (DPS paper section 4), `extra` the demand of clients
// that take a share without computing (ranks polling in MPI), and α the memory slowdown of the
// occupied memory (eq. 3: TEM = TE · (1 + α)). Memory-bound work (BLAS kernels) is further slowed by
// the cores busy beside it: × s(busy), busy = min(n, c), from the measured concurrency speeds s(1..c)
// when given, else the line 1 − (1 − core_efficiency) · (busy − 1) / (c − 1). The packing and
// unpacking of messages (o of eq. 7) shares the cores but is not slowed by α.
// FIFO: at most c clients are served at once (each at the rate above), the others wait in arrival
// order; a served client runs to completion.
//
// Every client of one class progresses at the same rate, so the processor keeps per class one
// "work served per share" clock V and a heap of clients keyed by the V at which they finish: a start
// or an end is O(log n) and never re-rates the other clients; the next completion is the heap's top.
#pragma once

#include <cstdint>
#include <array>
#include <vector>

#include "hetperf/simulator/engine/engine.hpp"
#include "hetperf/simulator/engine/fifo_queue.hpp"

namespace hetperf::sim {

enum class Discipline : std::uint8_t { kProcessorSharing, kFifo };
const char* to_string(Discipline d);

// Plain work is slowed by the memory slowdown α; memory-bound work also by the busy cores; the
// per-message overhead o (UniMPP paper eq. 7) is a term of its own in eq. 8, apart from TEM, and is not.
enum class WorkClass : std::uint8_t { kPlain, kMemoryBound, kMessageOverhead };

struct ProcessorSpec {
  int cores = 1;               // >= 1
  double speed = 1;            // work units per second of one core alone (> 0)
  double core_efficiency = 1;  // memory-bound speed with every core busy, relative to one alone, (0, 1]
  Discipline discipline = Discipline::kProcessorSharing;
  // Memory-bound speed with k cores busy, relative to one alone, k = 1 .. size (> 0); beyond its size
  // its last value. Empty: the line through core_efficiency.
  std::vector<double> concurrency_speed = {};
};

class ProcessorListener {
 public:
  // `token` finished its work; `slowdown_work` is the work it would have done more without the
  // memory slowdown, ∫ rate · α dt (TEM − TE of eq. 3, in work units).
  virtual void computed(std::uint32_t token, double slowdown_work) = 0;

 protected:
  ~ProcessorListener() = default;
};

class Processor final : public Handler {
 public:
  using Client = std::uint32_t;

  Processor(Engine& engine, ProcessorListener& listener, const ProcessorSpec& spec);
  Processor(const Processor&) = delete;
  Processor& operator=(const Processor&) = delete;

  // Adds `work` units (>= 0) for `token`; `computed(token, ...)` is called when it is done.
  Client start(std::uint32_t token, double work, WorkClass work_class = WorkClass::kPlain);
  struct Removed {
    double remaining_work = 0;  // not yet served
    double slowdown_work = 0;   // as in `computed`, up to now
  };
  // Takes a client away before its end (a migration); no `computed` call follows.
  Removed remove(Client client);

  void set_slowdown(double alpha);        // α >= 0
  void set_free_share(double free);       // in [0, 1]
  void set_extra_demand(double clients);  // >= 0

  const ProcessorSpec& spec() const { return spec_; }
  std::size_t served() const { return served_; }  // clients computing now
  std::size_t queued() const { return fifo_.size(); }
  // Seconds with at least one client computing, up to now.
  double busy_s();
  // Core-seconds computing, ∫ min(served, cores) dt, up to now.
  double busy_core_s();
  // Remaining work of every client served now, as (token, client, remaining work), in client order.
  template <class F>
  void for_each_served(F&& f) {
    advance();
    for (Client c = 0; c < clients_.size(); ++c) {
      const ClientState& s = clients_[c];
      if (s.live && s.served) f(s.token, c, std::max(0.0, classes_[cls(s)].heap.key(c).first - classes_[cls(s)].v));
    }
  }

  void fire(std::uint64_t key) override;

 private:
  struct ClientState {
    std::uint32_t token = 0;
    double work = 0;     // while queued: all of it
    double m_start = 0;  // class's ∫ r α dt when served
    WorkClass work_class = WorkClass::kPlain;
    bool live = false, served = false;
  };
  struct Class {
    double v = 0;  // work served per share so far
    double m = 0;  // ∫ r · α dt
    IndexedHeap<std::pair<double, std::uint64_t>> heap;
    explicit Class(std::vector<std::uint32_t>* positions) : heap(positions) {}
  };
  static std::size_t cls(const ClientState& s) { return static_cast<std::size_t>(s.work_class); }

  double share_rate() const;  // a client's rate before the memory slowdown and core efficiency
  double class_rate(std::size_t k) const;
  double class_rate(std::size_t k, double share) const;
  void advance();
  void serve(Client c);
  void admit();
  void reschedule();

  Engine& engine_;
  ProcessorListener& listener_;
  ProcessorSpec spec_;
  std::vector<ClientState> clients_;
  std::vector<Client> free_clients_;
  std::vector<std::uint32_t> positions_;
  std::array<Class, 3> classes_;  // by WorkClass
  FifoQueue<Client> fifo_;
  std::size_t served_ = 0;
  double alpha_ = 0, free_ = 1, extra_ = 0, busy_s_ = 0, busy_core_s_ = 0;
  std::uint64_t sequence_ = 0;
  Time last_;
  EventId timer_;
  std::vector<std::pair<std::uint32_t, double>> done_;
};

}  // namespace hetperf::sim
