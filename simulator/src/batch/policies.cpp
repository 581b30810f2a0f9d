// The batch policy registry and the static policies: FCFS, EASY backfilling, conservative backfilling.
#include <algorithm>
#include <limits>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/batch/policy.hpp"
#include "batch/reshape.hpp"

namespace hetperf::sim::batch {
namespace {

struct Entry {
  std::string description;
  BatchPolicyFactory factory;
};

std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}

// The largest option that fits in `free` and satisfies `ok`; nullptr when none does.
template <typename Ok>
const StartOption* largest_fitting(const QueuedJob& q, std::int64_t free, Ok ok) {
  for (auto it = q.options->rbegin(); it != q.options->rend(); ++it) {
    if (it->processors <= free && ok(*it)) return &*it;
  }
  return nullptr;
}

const StartOption* largest_fitting(const QueuedJob& q, std::int64_t free) {
  return largest_fitting(q, free, [](const StartOption&) { return true; });
}

// Starts jobs from the head of the queue while they fit; returns the position of the first that does
// not (queue size when all started).
std::size_t start_in_order(const SchedulerView& view, std::int64_t& free, std::vector<StartDecision>& starts) {
  const auto& queue = *view.queue;
  std::size_t i = 0;
  for (; i < queue.size(); ++i) {
    const StartOption* o = largest_fitting(queue[i], free);
    if (!o) break;
    starts.push_back({i, o->processors});
    free -= o->processors;
  }
  return i;
}

// Strict arrival order: a job never starts before an earlier one.
class Fcfs final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    std::int64_t free = view.free;
    start_in_order(view, free, starts);
  }
};

// EASY backfilling (Lifka 1995): the first waiting job gets a reservation at the earliest time enough
// processors are released (the "shadow time"); a later job may start now when it fits and either ends
// by the shadow time or uses only the processors the head leaves spare then ("extra").
class Easy final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    const auto& queue = *view.queue;
    std::int64_t free = view.free;
    std::size_t head = start_in_order(view, free, starts);
    if (head == queue.size() || free == 0) return;
    // Releases of the jobs started in this call, merged with those of the running jobs.
    started_.clear();
    for (const auto& s : starts) {
      const auto& opts = *queue[s.position].options;
      auto o = std::find_if(opts.begin(), opts.end(), [&](const StartOption& x) { return x.processors == s.processors; });
      started_.push_back({view.now_s + o->estimate_s, s.processors});
    }
    std::sort(started_.begin(), started_.end());
    std::int64_t need = queue[head].options->front().processors;
    std::int64_t available = free;
    double shadow = view.now_s;
    auto r = view.releases->begin();
    auto s = started_.begin();
    // Releases in time order, from the running jobs and from those started in this call.
    const auto running_end = view.releases->end();
    auto exhausted = [&] { return r == running_end && s == started_.end(); };
    auto from_running = [&] { return s == started_.end() || (r != running_end && r->first <= s->first); };
    auto next_time = [&] { return std::max(view.now_s, from_running() ? r->first : s->first); };
    auto take = [&] { available += from_running() ? (r++)->second : (s++)->second; };
    while (available < need) {
      HETPERF_CHECK(!exhausted(), "head job can never start");
      shadow = next_time();
      take();
    }
    // Every processor released at or before the shadow time is there then, not only those the head
    // needed: jobs ending at the same moment all count, whatever the order of the ties.
    while (!exhausted() && next_time() <= shadow) take();
    std::int64_t extra = available - need;
    for (std::size_t j = head + 1; j < queue.size() && free > 0; ++j) {
      const StartOption* o = largest_fitting(queue[j], free, [&](const StartOption& x) {
        return view.now_s + x.estimate_s <= shadow || x.processors <= extra;
      });
      if (!o) continue;
      starts.push_back({j, o->processors});
      free -= o->processors;
      if (view.now_s + o->estimate_s > shadow) extra -= o->processors;
    }
  }

 private:
  std::vector<std::pair<double, std::int64_t>> started_;
};

// Conservative backfilling (Mu'alem and Feitelson 2001): every waiting job, in submit order, gets the
// earliest reservation that delays no earlier job; those whose reservation is now start. Rebuilding
// the reservations at each event compresses the schedule when jobs end before their estimates.
class Conservative final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    AvailabilityProfile profile(view.now_s, view.free, *view.releases);
    const auto& queue = *view.queue;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      // Moldable jobs take the option that ends earliest (largest count on ties).
      const StartOption* best = nullptr;
      double best_start = 0;
      for (const auto& o : *queue[i].options) {
        double t = profile.earliest_start(o.processors, o.estimate_s);
        if (!best || t + o.estimate_s <= best_start + best->estimate_s) best = &o, best_start = t;
      }
      profile.reserve(best_start, best->estimate_s, best->processors);
      if (best_start == view.now_s) starts.push_back({i, best->processors});
    }
  }
};

const bool kRegistered = register_batch_policy("fcfs", "first come, first served; no backfilling",
                                               [](const nlohmann::json&) { return std::make_unique<Fcfs>(); }) &&
                         register_batch_policy("easy", "EASY backfilling: only the first waiting job holds a reservation",
                                               [](const nlohmann::json&) { return std::make_unique<Easy>(); }) &&
                         register_batch_policy("conservative", "conservative backfilling: every waiting job holds a reservation",
                                               [](const nlohmann::json&) { return std::make_unique<Conservative>(); }) &&
                         register_batch_policy("reshape", "ReSHAPE remap scheduler (seed 002 section 3.1): FCFS or EASY "
                                                          "starts; malleable jobs expand into idle processors and shrink "
                                                          "for waiting jobs or when an expansion did not help",
                                               make_reshape_policy);

}  // namespace

bool register_batch_policy(const std::string& name, const std::string& description, BatchPolicyFactory factory) {
  registry()[name] = Entry{description, std::move(factory)};
  return true;
}

std::unique_ptr<BatchPolicy> make_batch_policy(const std::string& name, const nlohmann::json& options) {
  (void)kRegistered;
  auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [n, e] : registry()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown batch policy '" + name + "' (known: " + known + ")");
  }
  return it->second.factory(options);
}

std::vector<std::pair<std::string, std::string>> batch_policies() {
  (void)kRegistered;
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, e] : registry()) out.emplace_back(n, e.description);
  return out;
}

AvailabilityProfile::AvailabilityProfile(double now_s, std::int64_t free,
                                         const std::multimap<double, std::int64_t>& releases) {
  steps_.emplace_back(now_s, free);
  for (const auto& [t, p] : releases) {
    double at = std::max(now_s, t);
    if (steps_.back().first == at) steps_.back().second += p;
    else steps_.emplace_back(at, steps_.back().second + p);
  }
}

std::int64_t AvailabilityProfile::free_at(double t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t,
                             [](double x, const std::pair<double, std::int64_t>& s) { return x < s.first; });
  return it == steps_.begin() ? 0 : std::prev(it)->second;
}

double AvailabilityProfile::earliest_start(std::int64_t processors, double duration_s) const {
  // A start is only ever at a step boundary; from candidate k, scan the steps the job would overlap.
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    if (steps_[k].second < processors) continue;
    double end = steps_[k].first + duration_s;
    std::size_t m = k + 1;
    while (m < steps_.size() && steps_[m].first < end && steps_[m].second >= processors) ++m;
    if (m == steps_.size() || steps_[m].first >= end) return steps_[k].first;
    // Step m is too small, and every start in k..m-1 would overlap it: the next candidate is m + 1
    // (the loop's ++k lands on m, which the first test skips).
    k = m - 1;
  }
  HETPERF_CHECK(false, "no start found for " + std::to_string(processors) + " processors");
  return 0;
}

void AvailabilityProfile::reserve(double start_s, double duration_s, std::int64_t processors) {
  auto split = [&](double t) {
    auto it = std::lower_bound(steps_.begin(), steps_.end(), t,
                               [](const std::pair<double, std::int64_t>& s, double x) { return s.first < x; });
    if (it != steps_.end() && it->first == t) return static_cast<std::size_t>(it - steps_.begin());
    HETPERF_CHECK(it != steps_.begin(), "reservation before the profile starts");
    std::int64_t free = std::prev(it)->second;
    auto inserted = steps_.insert(it, {t, free});  // may reallocate: take begin() afterwards
    return static_cast<std::size_t>(inserted - steps_.begin());
  };
  if (duration_s <= 0) return;
  std::size_t a = split(start_s);
  std::size_t b = split(start_s + duration_s);
  for (std::size_t i = a; i < b; ++i) {
    steps_[i].second -= processors;
    HETPERF_CHECK(steps_[i].second >= 0, "reservation over capacity");
  }
}

}  // namespace hetperf::sim::batch
