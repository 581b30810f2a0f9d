// Differential tests of the batch policies: EASY and conservative backfilling, which find their jobs
// through the queue's index and an availability profile in a tree, against reference implementations
// that scan the whole queue and a list of steps at every event (the algorithms as first written).
// Every job must start at the same time on the same count: on seeded random job sets (long queues,
// equal submit times, jobs running past their estimates, moldable jobs) and on SWF excerpts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/batch/schedule.hpp"

using namespace hetperf::sim::batch;

namespace {

// ---- The reference implementations: one scan of the queue, in submit order, per event. ----

// The live slots of the queue, in submit order: the positions the reference algorithms index.
std::vector<std::size_t> live_slots(const WaitingQueue& q) {
  std::vector<std::size_t> out;
  for (std::size_t s = q.first(); s != q.end(); s = q.next(s)) out.push_back(s);
  return out;
}

template <typename Ok>
const StartOption* largest_fitting(const QueuedJob& q, std::int64_t free, Ok ok) {
  for (auto it = q.options->rbegin(); it != q.options->rend(); ++it) {
    if (it->processors <= free && ok(*it)) return &*it;
  }
  return nullptr;
}

// A list of (time, free) steps; a reservation searched from the first step every time.
class StepProfile {
 public:
  StepProfile(double now_s, std::int64_t free, const std::multimap<double, std::int64_t>& releases) {
    steps_.emplace_back(now_s, free);
    // As first written, but for this: a release at or before now (a job running past its estimate)
    // counted as free now, and conservative backfilling started jobs on processors still held (the
    // engine stopped on its check). It counts from just after now, as in AvailabilityProfile.
    const double overdue_s = std::nextafter(now_s, std::numeric_limits<double>::infinity());
    for (const auto& [t, p] : releases) {
      double at = t <= now_s ? overdue_s : t;
      if (steps_.back().first == at)
        steps_.back().second += p;
      else
        steps_.emplace_back(at, steps_.back().second + p);
    }
  }
  double earliest_start(std::int64_t processors, double duration_s) const {
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      if (steps_[k].second < processors) continue;
      double end = steps_[k].first + duration_s;
      std::size_t m = k + 1;
      while (m < steps_.size() && steps_[m].first < end && steps_[m].second >= processors) ++m;
      if (m == steps_.size() || steps_[m].first >= end) return steps_[k].first;
      k = m - 1;
    }
    FAIL("no start found");
    return 0;
  }
  void reserve(double start_s, double duration_s, std::int64_t processors) {
    auto split = [&](double t) {
      auto it = std::lower_bound(steps_.begin(), steps_.end(), t,
                                 [](const std::pair<double, std::int64_t>& s, double x) { return s.first < x; });
      if (it != steps_.end() && it->first == t) return static_cast<std::size_t>(it - steps_.begin());
      std::int64_t free = std::prev(it)->second;
      auto inserted = steps_.insert(it, {t, free});  // may reallocate: take begin() afterwards
      return static_cast<std::size_t>(inserted - steps_.begin());
    };
    if (duration_s <= 0) return;
    std::size_t a = split(start_s);
    std::size_t b = split(start_s + duration_s);
    for (std::size_t i = a; i < b; ++i) steps_[i].second -= processors;
  }

 private:
  std::vector<std::pair<double, std::int64_t>> steps_;
};

class ReferenceEasy final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    const std::vector<std::size_t> slots = live_slots(*view.queue);
    const WaitingQueue& queue = *view.queue;
    std::int64_t free = view.free;
    std::size_t head = 0;
    for (; head < slots.size(); ++head) {
      const StartOption* o = largest_fitting(queue[slots[head]], free, [](const StartOption&) { return true; });
      if (!o) break;
      starts.push_back({slots[head], o->processors});
      free -= o->processors;
    }
    if (head == slots.size() || free == 0) return;
    std::vector<std::pair<double, std::int64_t>> started;
    for (const auto& s : starts) {
      const auto& opts = *queue[s.position].options;
      auto o =
          std::find_if(opts.begin(), opts.end(), [&](const StartOption& x) { return x.processors == s.processors; });
      started.push_back({view.now_s + o->estimate_s, s.processors});
    }
    std::sort(started.begin(), started.end());
    std::int64_t need = queue[slots[head]].options->front().processors;
    std::int64_t available = free;
    double shadow = view.now_s;
    auto r = view.releases->begin();
    auto s = started.begin();
    const auto running_end = view.releases->end();
    auto exhausted = [&] { return r == running_end && s == started.end(); };
    auto from_running = [&] { return s == started.end() || (r != running_end && r->first <= s->first); };
    auto next_time = [&] { return std::max(view.now_s, from_running() ? r->first : s->first); };
    auto take = [&] { available += from_running() ? (r++)->second : (s++)->second; };
    while (available < need) {
      REQUIRE_FALSE(exhausted());
      shadow = next_time();
      take();
    }
    while (!exhausted() && next_time() <= shadow) take();
    std::int64_t extra = available - need;
    for (std::size_t j = head + 1; j < slots.size() && free > 0; ++j) {
      const StartOption* o = largest_fitting(queue[slots[j]], free, [&](const StartOption& x) {
        return view.now_s + x.estimate_s <= shadow || x.processors <= extra;
      });
      if (!o) continue;
      starts.push_back({slots[j], o->processors});
      free -= o->processors;
      if (view.now_s + o->estimate_s > shadow) extra -= o->processors;
    }
  }
};

class ReferenceConservative final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    StepProfile profile(view.now_s, view.free, *view.releases);
    for (std::size_t slot : live_slots(*view.queue)) {
      const StartOption* best = nullptr;
      double best_start = 0;
      for (const auto& o : *(*view.queue)[slot].options) {
        double t = profile.earliest_start(o.processors, o.estimate_s);
        if (!best || t + o.estimate_s <= best_start + best->estimate_s) best = &o, best_start = t;
      }
      profile.reserve(best_start, best->estimate_s, best->processors);
      if (best_start == view.now_s) starts.push_back({slot, best->processors});
    }
  }
};

// The reference policies, registered for the length of one test.
struct ReferencePolicies {
  ReferencePolicies() {
    register_batch_policy("easy-reference", "",
                          [](const nlohmann::json&) { return std::make_unique<ReferenceEasy>(); });
    register_batch_policy("conservative-reference", "",
                          [](const nlohmann::json&) { return std::make_unique<ReferenceConservative>(); });
  }
  ~ReferencePolicies() {
    unregister_batch_policy("easy-reference");
    unregister_batch_policy("conservative-reference");
  }
};

// ---- Job sets ----

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

struct JobSetShape {
  std::size_t jobs = 0;
  std::int64_t processors = 0;
  std::size_t burst = 0;      // jobs submitted at time 0
  double load = 0.95;         // offered load of the others
  double moldable = 0;        // fraction of moldable jobs
  double overrun = 0.1;       // fraction running past their requested time
  double no_estimate = 0.05;  // fraction without a requested time
};

// Widths 2^k, log-uniform run times from 1 s to 2 h, requested times 1-3x the run time (a fraction
// shorter, the job runs past it), a twentieth of the arrivals at the time of the one before.
std::vector<JobSpec> random_jobs(const JobSetShape& shape, std::uint64_t seed) {
  SplitMix64 rng{seed};
  const int kmax = static_cast<int>(std::log2(static_cast<double>(shape.processors)));
  const double mean_run = 7199.0 / std::log(7200.0), mean_width = std::pow(2.0, kmax) / kmax;
  const double gap = mean_width * mean_run / (shape.load * static_cast<double>(shape.processors));
  std::vector<JobSpec> out(shape.jobs);
  double t = 0;
  for (std::size_t i = 0; i < shape.jobs; ++i) {
    JobSpec& j = out[i];
    j.id = static_cast<std::int64_t>(i) + 1;
    j.name = "job-" + std::to_string(j.id);
    if (i >= shape.burst && rng.uniform01() >= 0.05) t += std::floor(-gap * std::log(1 - rng.uniform01()));
    j.submit_s = t;
    const double run = std::floor(std::exp(rng.uniform01() * std::log(7200.0)));
    const std::int64_t width = std::int64_t{1} << (rng.next() % static_cast<std::uint64_t>(kmax));
    const double u = rng.uniform01();
    if (u < shape.overrun)
      j.requested_time_s = std::max(1.0, std::floor(run * 0.6));
    else if (u < shape.overrun + shape.no_estimate)
      j.requested_time_s.reset();
    else
      j.requested_time_s = std::ceil(run * (1 + 2 * rng.uniform01()));
    if (rng.uniform01() < shape.moldable) {
      j.kind = JobKind::kMoldable;
      hetperf::BatchAppModel app;
      for (std::int64_t p = std::max<std::int64_t>(1, width / 2); p <= std::min(shape.processors, width * 2); p *= 2) {
        j.allowed.push_back(p);
        app.iteration_time_s[p] = std::max(1.0, run * static_cast<double>(width) / static_cast<double>(p));
      }
      j.app = app;
    } else {
      j.processors = width;
      j.run_time_s = run;
    }
  }
  return out;
}

// Each job's start and count under `policy` and under its reference.
void check_same_starts(const std::vector<JobSpec>& jobs, std::int64_t processors, const std::string& policy) {
  ReferencePolicies references;
  ScheduleOptions o;
  o.policy = policy;
  ScheduleResult fast = simulate_schedule(Cluster::homogeneous(processors), jobs, o);
  o.policy = policy + "-reference";
  ScheduleResult reference = simulate_schedule(Cluster::homogeneous(processors), jobs, o);
  REQUIRE(fast.jobs.size() == reference.jobs.size());
  std::size_t different = 0;
  for (std::size_t i = 0; i < fast.jobs.size(); ++i) {
    if (fast.jobs[i].start_s != reference.jobs[i].start_s || fast.jobs[i].processors != reference.jobs[i].processors) {
      if (different++ == 0) {
        INFO("first difference: job " << fast.jobs[i].id << " starts at " << fast.jobs[i].start_s << " on "
                                      << fast.jobs[i].processors << ", reference " << reference.jobs[i].start_s
                                      << " on " << reference.jobs[i].processors);
        CHECK(different == 0);
      }
    }
  }
  CHECK(different == 0);
  CHECK(fast.summary.events == reference.summary.events);
}

// The fewest jobs waiting under EASY at the arrivals of the jobs in the second and third quarters of
// the list: the queue is long through the middle of the run.
std::size_t fewest_waiting_mid_run(const std::vector<JobSpec>& jobs, std::int64_t processors) {
  ScheduleOptions o;
  o.policy = "easy";
  ScheduleResult r = simulate_schedule(Cluster::homogeneous(processors), jobs, o);
  std::size_t fewest = jobs.size();
  for (std::size_t i = jobs.size() / 4; i < 3 * jobs.size() / 4; i += jobs.size() / 40) {
    const double t = jobs[i].submit_s;
    fewest = std::min<std::size_t>(
        fewest, static_cast<std::size_t>(std::count_if(r.jobs.begin(), r.jobs.end(), [&](const JobResult& j) {
          return j.submit_s <= t && j.start_s > t;
        })));
  }
  return fewest;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("simulator: EASY starts every job as the whole-queue scan does, on random job sets") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    JobSetShape shape;
    shape.jobs = 400;
    shape.processors = seed % 2 ? 32 : 128;
    shape.burst = seed % 3 == 0 ? 100 : 0;
    shape.load = 0.8 + 0.05 * static_cast<double>(seed % 5);
    shape.moldable = seed % 4 == 0 ? 0.3 : 0;
    check_same_starts(random_jobs(shape, seed), shape.processors, "easy");
  }
}

TEST_CASE("simulator: EASY starts every job as the whole-queue scan does while over a thousand jobs wait") {
  JobSetShape shape;
  shape.jobs = 6000;
  shape.processors = 256;
  shape.burst = 2500;
  shape.load = 1.3;
  const auto jobs = random_jobs(shape, 38);
  CHECK(fewest_waiting_mid_run(jobs, shape.processors) > 1000);
  check_same_starts(jobs, shape.processors, "easy");
}

TEST_CASE(
    "simulator: conservative backfilling starts every job as rebuilding every reservation does, on random job sets") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    JobSetShape shape;
    shape.jobs = 300;
    shape.processors = seed % 2 ? 32 : 128;
    shape.burst = seed % 3 == 0 ? 80 : 0;
    shape.load = 0.8 + 0.05 * static_cast<double>(seed % 5);
    shape.moldable = seed % 4 == 0 ? 0.3 : 0;
    check_same_starts(random_jobs(shape, seed), shape.processors, "conservative");
  }
}

TEST_CASE(
    "simulator: conservative backfilling starts every job as rebuilding every reservation does while over a thousand "
    "jobs wait") {
  JobSetShape shape;
  shape.jobs = 2400;
  shape.processors = 64;
  shape.burst = 1500;
  shape.load = 2.0;
  const auto jobs = random_jobs(shape, 7);
  CHECK(fewest_waiting_mid_run(jobs, shape.processors) > 1000);
  check_same_starts(jobs, shape.processors, "conservative");
}

TEST_CASE("simulator: EASY and conservative start the jobs of real SWF excerpts as the reference implementations do") {
  for (const char* name : {"NASA-iPSC-1993-3.1-cln.first1500.swf", "LLNL-Atlas-2006-2.1-cln.first1500.swf"}) {
    INFO(name);
    const std::string path = std::string(HETPERF_SOURCE_DIR) + "/tests/data/swf/" + name;
    SwfTrace trace = parse_swf(read_text(path), path);
    std::vector<SkippedJob> skipped;
    const auto jobs = jobs_from_swf(trace, skipped);
    CHECK(jobs.size() > 1000);
    for (const char* policy : {"easy", "conservative"}) check_same_starts(jobs, *trace.cluster_size(), policy);
  }
}
