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

// Starts jobs from the head of the queue while they fit; returns the slot of the first that does not
// (the queue's end when all started).
std::size_t start_in_order(const SchedulerView& view, std::int64_t& free, std::vector<StartDecision>& starts) {
  const WaitingQueue& queue = *view.queue;
  std::size_t i = queue.first();
  for (; i != queue.end(); i = queue.next(i)) {
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
// by the shadow time or uses only the processors the head leaves spare then ("extra"). The later jobs
// that may are found through the queue's index, in submit order, without visiting those that cannot.
class Easy final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    const WaitingQueue& queue = *view.queue;
    std::int64_t free = view.free;
    std::size_t head = start_in_order(view, free, starts);
    if (head == queue.end() || free == 0) return;
    const std::int64_t need = queue[head].options->front().processors;
    const auto shadow_and_available = shadow_time(view, starts, need, free);
    const double shadow = shadow_and_available.first;
    std::int64_t extra = shadow_and_available.second - need;
    const double now = view.now_s;
    auto ok = [&](const StartOption& x) { return now + x.estimate_s <= shadow || x.processors <= extra; };
    // A lower bound of a job's options can only pass where one of its options does.
    auto may = [&](const QueueBound& b) {
      return b.processors <= free && (now + b.estimate_s <= shadow || b.processors <= extra);
    };
    auto fits = [&](std::size_t j) { return largest_fitting(queue[j], free, ok) != nullptr; };
    for (std::size_t j = queue.find(head + 1, may, fits); j != queue.end(); j = queue.find(j + 1, may, fits)) {
      const StartOption* o = largest_fitting(queue[j], free, ok);
      starts.push_back({j, o->processors});
      free -= o->processors;
      if (now + o->estimate_s > shadow) extra -= o->processors;
      if (free == 0) break;
    }
  }

 private:
  // The head's shadow time and the processors available then: releases in time order, from the
  // running jobs and from those started in this call, until `need` are free.
  std::pair<double, std::int64_t> shadow_time(const SchedulerView& view, const std::vector<StartDecision>& starts,
                                              std::int64_t need, std::int64_t free) {
    started_.clear();
    for (const auto& s : starts) {
      const auto& opts = *(*view.queue)[s.position].options;
      auto o =
          std::find_if(opts.begin(), opts.end(), [&](const StartOption& x) { return x.processors == s.processors; });
      started_.push_back({view.now_s + o->estimate_s, s.processors});
    }
    std::sort(started_.begin(), started_.end());
    std::int64_t available = free;
    double shadow = view.now_s;
    auto r = view.releases->begin();
    auto s = started_.begin();
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
    return {shadow, available};
  }

  std::vector<std::pair<double, std::int64_t>> started_;
};

// Conservative backfilling (Mu'alem and Feitelson 2001): every waiting job, in submit order, gets the
// earliest reservation that delays no earlier job; those whose reservation is now start. Rebuilding
// the reservations at each event compresses the schedule when jobs end before their estimates.
//
// Two shortcuts leave the starts exactly those of reserving the whole queue at every event:
//  - reservations stop after the last job that could still start now. A job starts now only if,
//    for one of its options, every step of the profile from now until its estimated end has room
//    for it; later reservations only take processors away, so a job that fails this test on the
//    profile so far fails it on its own. The queue's index finds the next job that passes.
//  - when only arrivals happened since the last event (SchedulerView::releases_changed) and no step
//    of the profile was passed, the reservations made then still stand and new jobs are placed after
//    them.
class Conservative final : public BatchPolicy {
 public:
  void select(const SchedulerView& view, std::vector<StartDecision>& starts) override {
    const WaitingQueue& queue = *view.queue;
    const double now = view.now_s;
    if (planned_ && !view.releases_changed && queue.generation() == generation_ && profile_.second_step_s() > now) {
      profile_.advance(now);
    } else {
      profile_.reset(now, view.free, *view.releases);
      next_ = queue.first();
      generation_ = queue.generation();
      planned_ = true;
    }
    // The least free count over [now, now + estimate): of the last step beginning before its end.
    auto room = [&](double estimate_s) {
      auto after = std::lower_bound(ahead_.begin(), ahead_.end(), now + estimate_s,
                                    [](const std::pair<double, std::int64_t>& s, double t) { return s.first < t; });
      return after == ahead_.begin() ? std::numeric_limits<std::int64_t>::max() : std::prev(after)->second;
    };
    auto may = [&](const QueueBound& b) { return b.processors <= room(b.estimate_s); };
    auto fits = [&](std::size_t j) {
      const auto& opts = *queue[j].options;
      return std::any_of(opts.begin(), opts.end(),
                         [&](const StartOption& o) { return o.processors <= room(o.estimate_s); });
    };
    for (;;) {
      profile_.least_free_ahead(ahead_);
      const std::size_t c = queue.find(next_, may, fits);
      if (c == queue.end()) break;
      for (; next_ <= c; next_ = queue.next(next_)) reserve(queue, next_, now, starts);
    }
  }

 private:
  void reserve(const WaitingQueue& queue, std::size_t slot, double now, std::vector<StartDecision>& starts) {
    // Moldable jobs take the option that ends earliest (largest count on ties).
    const StartOption* best = nullptr;
    double best_start = 0;
    for (const auto& o : *queue[slot].options) {
      double t = profile_.earliest_start(o.processors, o.estimate_s);
      if (!best || t + o.estimate_s <= best_start + best->estimate_s) best = &o, best_start = t;
    }
    profile_.reserve(best_start, best->estimate_s, best->processors);
    if (best_start == now) starts.push_back({slot, best->processors});
  }

  AvailabilityProfile profile_;
  std::vector<std::pair<double, std::int64_t>> ahead_;  // profile_.least_free_ahead()
  bool planned_ = false;                                // profile_ holds the reservations of the queue before next_
  std::size_t next_ = 0;                                // the first waiting job without a reservation
  std::uint64_t generation_ = 0;                        // of the queue's slots when profile_ was built
};

const bool kRegistered =
    register_batch_policy("fcfs", "first come, first served; no backfilling",
                          [](const nlohmann::json&) { return std::make_unique<Fcfs>(); }) &&
    register_batch_policy("easy", "EASY backfilling: only the first waiting job holds a reservation",
                          [](const nlohmann::json&) { return std::make_unique<Easy>(); }) &&
    register_batch_policy("conservative", "conservative backfilling: every waiting job holds a reservation",
                          [](const nlohmann::json&) { return std::make_unique<Conservative>(); }) &&
    register_batch_policy("reshape",
                          "ReSHAPE remap scheduler (ReSHAPE paper section 3.1): FCFS or EASY "
                          "starts; malleable jobs expand into idle processors and shrink "
                          "for waiting jobs or when an expansion did not help",
                          make_reshape_policy);

}  // namespace

bool register_batch_policy(const std::string& name, const std::string& description, BatchPolicyFactory factory) {
  registry()[name] = Entry{description, std::move(factory)};
  return true;
}

void unregister_batch_policy(const std::string& name) { registry().erase(name); }

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

}  // namespace hetperf::sim::batch
