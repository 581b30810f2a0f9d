// Simulated back-end: the ranks' coroutines run on the engine's RankWorld (see sim_runtime.hpp and
// simulator/include/hetperf/simulator/rank_world.hpp).
#include "hetperf/apps/sim/sim_runtime.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <memory>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/rank_world.hpp"

namespace hetperf::apps {
namespace {

class Adapter;

// One rank of one application. Its runtime numbers ranks within the application; the world numbers
// every rank of every application (the global id).
class SimRank final : public Runtime {
 public:
  SimRank(Adapter& adapter, int id, int app, int offset, int rank, int size)
      : adapter_(adapter), id_(id), app_(app), offset_(offset), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool holds_data() const override { return false; }
  double now() const override;
  int app() const { return app_; }
  int id() const { return id_; }
  int global(int rank) const { return offset_ + rank; }
  int iteration() const { return pending_.iteration; }  // of the operation it starts

  // Ends the operation the rank waits for, records it and resumes the rank's coroutine.
  void complete(double t) {
    pending_.end_s = t;
    record(pending_);
    auto h = std::exchange(parked_, {});
    HETPERF_CHECK(h, "completing an operation nobody waits for");
    h.resume();
  }

 protected:
  bool start(const Request& r, TraceEvent& event) override;
  void park(std::coroutine_handle<> h) override { parked_ = h; }
  void record(const TraceEvent& event) override;

 private:
  Adapter& adapter_;
  int id_, app_, offset_, rank_, size_;
  TraceEvent pending_;
  std::coroutine_handle<> parked_;
};

// Per application: its ranks and what the run produced.
struct AppState {
  const SimApp* spec = nullptr;
  int offset = 0, size = 0;
  SimAppResult result;
  std::vector<int> members;  // ranks counted in each iteration so far
};

sim::RankPlatform rank_platform(const SimPlatform& p) {
  sim::RankPlatform out;
  out.latency_s = p.latency_s;
  out.bandwidth_bytes_per_s = p.bandwidth_bytes_per_s;
  out.eager_limit_bytes = p.eager_limit_bytes;
  out.regimes = p.regimes;
  out.send_buffer_bytes = p.send_buffer_bytes;
  for (const SimComputer& c : p.computers) {
    out.computers.push_back(c);  // its RankComputer part
  }
  return out;
}

// The back-end adapter: the applications' coroutines issue Runtime requests, which become operations
// of the engine's RankWorld; the world's completions resume them. What is recorded (trace events,
// iteration summaries) is the applications' own business and stays here.
class Adapter final : public sim::RankListener, public sim::Handler {
 public:
  Adapter(const SimPlatform& p, const std::vector<SimApp>& apps, const SimOptions& options)
      : p_(p), options_(options), world_platform_(rank_platform(p)), world_(world_platform_, *this) {
    const std::size_t computers = p.computers.size();
    for (std::size_t a = 0; a < apps.size(); ++a) {
      const SimApp& app = apps[a];
      HETPERF_CHECK(!app.mapping.empty(), "application " + app.name + " has no ranks");
      AppState s;
      s.spec = &app;
      s.offset = static_cast<int>(ranks_.size());
      s.size = static_cast<int>(app.mapping.size());
      s.result.name = app.name;
      s.result.start_s = app.start_s;
      const int world_app = world_.add_app(app.launch_group);
      for (int r = 0; r < s.size; ++r) {
        HETPERF_CHECK(app.mapping[r] < computers, "rank mapped to an unknown computer");
        const int id = world_.add_rank(world_app, app.mapping[r]);
        HETPERF_CHECK(id == s.offset + r, "rank ids out of step with the world's");
        mapping_.push_back(app.mapping[r]);
        ranks_.push_back(std::make_unique<SimRank>(*this, id, static_cast<int>(a), s.offset, r, s.size));
        last_iteration_.push_back(-1);
        rest_.emplace_back();
      }
      apps_.push_back(std::move(s));
    }
    // Ranks of one launch (an application, or a launch group of them) on one computer.
    std::map<std::pair<long, std::size_t>, int> launched;
    auto launch_of = [&](std::size_t a) {
      return apps[a].launch_group >= 0 ? apps[a].launch_group : -1 - static_cast<long>(a);
    };
    for (std::size_t a = 0; a < apps_.size(); ++a) {
      for (int r = 0; r < apps_[a].size; ++r) ++launched[{launch_of(a), apps[a].mapping[r]}];
    }
    for (std::size_t a = 0; a < apps_.size(); ++a) {
      for (int r = 0; r < apps_[a].size; ++r) colocated_.push_back(launched[{launch_of(a), apps[a].mapping[r]}]);
    }
    // Where ranks take turns of a core (sim::SlicedCores), off its core a rank does not spin, and the
    // re-touched pages, measured after spinning, are not charged.
    for (std::size_t c = 0; c < computers; ++c)
      retouch_ = retouch_ || (!world_.takes_turns(c) && !p.computers[c].page_retouch.ages_s.empty());
  }

  double now() const { return world_.now().s(); }

  SimRunResult run() {
    for (auto& r : ranks_) tasks_.push_back(run_rank(*r));
    for (std::size_t a = 0; a < apps_.size(); ++a) world_.engine().at(sim::Time(apps_[a].spec->start_s), *this, a);
    world_.run();
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      tasks_[i].rethrow_if_failed();
      const AppState& s = apps_[ranks_[i]->app()];
      HETPERF_CHECK(tasks_[i].done(), "rank " + std::to_string(i - s.offset) + " of " + s.spec->name +
                                          " is blocked at the end of the simulation (deadlock)");
    }
    SimRunResult out;
    out.makespan_s = now();
    out.simulation_events = world_.events();
    for (auto& s : apps_) out.apps.push_back(std::move(s.result));
    return out;
  }

  // An application's start: its ranks begin.
  void fire(std::uint64_t app) override {
    const AppState& s = apps_[app];
    for (int r = s.offset; r < s.offset + s.size; ++r) tasks_[r].resume();
  }

  void completed(int rank) override { ranks_[rank]->complete(now()); }

  // Returns true when the operation completed at once.
  bool start(const SimRank& me, const Runtime::Request& r);

  void record(int rank, const TraceEvent& e) {
    if (retouch_ && !is_compute(e.op)) rest_[static_cast<std::size_t>(rank)].waited(e.end_s - e.start_s);
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

  double retouch_s(const SimRank& me, const KernelCall& call);

  // The application body, then waiting for the rest of the launch group.
  Task run_rank(SimRank& r) {
    co_await apps_[r.app()].spec->body(r);
    world_.rank_done(r.id());
  }

  const SimPlatform& p_;
  SimOptions options_;
  sim::RankPlatform world_platform_;
  sim::RankWorld world_;
  std::vector<std::size_t> mapping_;  // per global rank
  std::vector<int> colocated_;        // per global rank: ranks of its launch on its computer
  std::vector<std::unique_ptr<SimRank>> ranks_;
  std::vector<Task> tasks_;
  std::vector<int> last_iteration_;
  std::vector<RestClock> rest_;  // per global rank: its waits, for its data's rest (PageRetouch)
  bool retouch_ = false;         // some computer charges re-touched pages
  std::vector<AppState> apps_;
};

double SimRank::now() const { return adapter_.now(); }
bool SimRank::start(const Request& r, TraceEvent& event) {
  pending_ = event;
  return adapter_.start(*this, r);
}
void SimRank::record(const TraceEvent& event) { adapter_.record(id_, event); }

bool Adapter::start(const SimRank& me, const Runtime::Request& r) {
  const int rank = me.id();
  switch (r.op) {
    case Op::kSend:
      return world_.send(rank, me.global(r.peer), r.tag, r.bytes);
    case Op::kIsend:
      world_.isend(rank, me.global(r.peer), r.tag, r.bytes, r.handle);
      return true;
    case Op::kWait:
      return world_.wait(rank, r.handle);
    case Op::kRecv:
      return world_.recv(rank, me.global(r.peer), r.tag);
    case Op::kBarrier:
      return world_.barrier(rank);
    case Op::kDiskWrite:
      return world_.disk_write(rank, r.bytes);
    default:
      break;
  }
  KernelCall call;
  switch (r.op) {
    case Op::kGetrf:
      call.kernel = "getrf";
      break;
    case Op::kLaswp:
      call.kernel = "laswp";
      break;
    case Op::kTrsm:
      call.kernel = "trsm";
      break;
    case Op::kGemm:
      call.kernel = "gemm";
      break;
    case Op::kPack:
      call.kernel = "pack";
      break;
    default:
      call.kernel = "integrate";
      break;
  }
  call.m = r.m, call.n = r.n, call.k = r.op == Op::kLaswp ? r.k2 - r.k1 + 1 : r.k, call.steps = r.steps;
  call.colocated = colocated_[static_cast<std::size_t>(rank)];
  const double seconds = std::max(0.0, p_.kernel_time(call, mapping_[rank])) + (retouch_ ? retouch_s(me, call) : 0);
  // A BLAS/LAPACK kernel is memory-bound work; the integration loop works in registers.
  return world_.compute(rank, seconds, r.op != Op::kIntegrate);
}

// The re-touched pages of the call's block at the age of its rank's rest (SimComputer::page_retouch).
double Adapter::retouch_s(const SimRank& me, const KernelCall& call) {
  const std::size_t c = mapping_[static_cast<std::size_t>(me.id())];
  if (world_.takes_turns(c)) return 0;
  const PageRetouch& pages = p_.computers[c].page_retouch;
  return rest_[static_cast<std::size_t>(me.id())].charge_s(pages, call.kernel, call.m, call.n, me.iteration());
}

}  // namespace

SimRunResult simulate_apps(const SimPlatform& platform, const std::vector<SimApp>& apps, const SimOptions& options) {
  Adapter adapter(platform, apps, options);
  return adapter.run();
}

SimRunResult simulate_app(const SimPlatform& platform, const std::vector<std::size_t>& mapping,
                          const std::function<Task(Runtime&)>& app) {
  SimRunResult r = simulate_apps(platform, {SimApp{"app", mapping, 0, app}});
  r.events = r.apps.front().events;
  return r;
}

}  // namespace hetperf::apps
