// The batch-scheduling simulation: arrivals, starts chosen by the policy, completions, and for
// malleable jobs the resize points between iterations with their redistribution (ReSHAPE paper Fig. 1b).
#include <algorithm>
#include <cmath>
#include <set>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/simulator/batch/schedule.hpp"
#include "hetperf/simulator/engine/engine.hpp"

namespace hetperf::sim::batch {
namespace {

enum EventKind : std::uint64_t { kArrival, kFinish, kIterationEnd, kResizeDone, kPass };

// Beyond this a time is not a prediction but a sign of a wrong input (about 31,700 years), as in the
// UniMPP simulation.
constexpr double kImplausibleS = 1e12;
// Memory a malleable job's iteration takes in the result: its record, its JSON object and its text when
// rows are kept (measured: 1.47 KiB per iteration, max RSS of 1e5 against 4e5 iterations); only its
// record otherwise.
constexpr double kIterationBytesKept = 1536, kIterationBytesSummary = 48;
constexpr std::uint64_t key(EventKind kind, std::size_t job) { return (std::uint64_t{kind} << 32) | job; }

struct JobState {
  std::vector<StartOption> options;
  std::vector<std::int64_t> configurations;  // malleable: sizes it may run on
  std::vector<std::int64_t> held;            // processors held per speed group
  std::int64_t processors = 0;
  double speed = 1;  // slowest processor held
  std::multimap<double, std::int64_t>::iterator release;
  bool has_release = false;
  std::size_t result = 0;    // index in ScheduleResult::jobs
  double last_change_s = 0;  // for processor-seconds
  std::int64_t iterations_done = 0;
  double iteration_start_s = 0;
  std::int64_t target = 0;  // size after the pending redistribution
  double pending_redistribution_s = 0;
  double next_point_s = 0;  // its next resize point (or its end)
  JobProfile profile;
};

class Scheduler final : public Handler {
 public:
  Scheduler(const Cluster& cluster, const std::vector<JobSpec>& jobs, const ScheduleOptions& options,
            std::vector<SkippedJob> skipped, const ScheduleOutput& output)
      : cluster_(cluster),
        jobs_(jobs),
        options_(options),
        output_(output),
        policy_(make_batch_policy(options.policy, options.policy_options)),
        state_(jobs.size()),
        free_by_group_(cluster.groups.size()) {
    result_.policy = options.policy;
    result_.processors = cluster.total();
    result_.skipped = std::move(skipped);
    for (std::size_t g = 0; g < cluster.groups.size(); ++g) free_by_group_[g] = cluster.groups[g].processors;
    free_ = cluster.total();
  }

  ScheduleResult run() {
    admit_jobs();
    result_.utilisation.push_back({first_submit_, 0});
    engine_.run();
    HETPERF_CHECK(queue_.empty(), "jobs left waiting at the end of the simulation");
    summarize();
    if (!output_.keep_jobs) result_.jobs = {};
    if (!output_.keep_utilisation) result_.utilisation = {};
    return std::move(result_);
  }

  void fire(std::uint64_t k) override {
    now_ = engine_.now().s();
    const auto j = static_cast<std::size_t>(k & 0xffffffffu);
    switch (static_cast<EventKind>(k >> 32)) {
      case kArrival:
        arrive(j);
        break;
      case kFinish:
        finish(j);
        break;
      case kIterationEnd:
        iteration_end(j);
        break;
      case kResizeDone:
        resize_done(j);
        break;
      case kPass:
        pass();
        break;
    }
  }

 private:
  // Validates every job against the cluster; schedules the arrivals of those that can run.
  void admit_jobs() {
    const std::int64_t total = cluster_.total();
    std::vector<std::size_t> order;
    double recorded_bytes = 0;
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      const JobSpec& job = jobs_[i];
      JobState& s = state_[i];
      for (std::int64_t p : job.start_options()) {
        if (p <= total) s.options.push_back({p, job.estimate_at(p)});
      }
      if (!s.options.empty()) check_plausible(job, s, recorded_bytes);
      if (s.options.empty()) {
        std::int64_t asked = job.start_options().front();
        result_.skipped.push_back(
            {job.id, job.name, job.where,
             "asks for " + std::to_string(asked) + " processors; the cluster has " + std::to_string(total)});
        continue;
      }
      if (job.kind == JobKind::kMalleable) {
        for (std::int64_t p : resize_configurations(job)) {
          if (p <= total) s.configurations.push_back(p);
        }
        const ResizeSpec& r = job.resize;
        if (s.configurations.size() <= 1) {
          result_.warnings.push_back(
              job.where + ": malleable job '" + job.name + "' can never be resized: " +
              (r.topology == Topology::kNearlySquare
                   ? "its start on " + std::to_string(job.processors) +
                         " processors is not a grid whose sides divide "
                         "problem_size " +
                         std::to_string(r.problem_size) + ", or no larger grid fits"
                   : "no other processor count its app and resize settings allow fits the cluster"));
        }
        if (!r.redistribution_s && !r.redistribution_bandwidth_bytes_per_s && r.data_bytes > 0 &&
            cluster_.bandwidth_bytes_per_s <= 0) {
          throw InputError(job.where +
                           ".resize.data_bytes: needs a network model (a platform profile with "
                           "network.bandwidth_bytes_per_s > 0), resize.redistribution_cost or "
                           "a given resize.redistribution_s");
        }
      }
      order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return jobs_[a].submit_s < jobs_[b].submit_s; });
    first_submit_ = order.empty() ? 0 : jobs_[order.front()].submit_s;
    // Results keep the input order.
    result_.jobs.reserve(order.size());
    std::vector<std::size_t> by_input = order;
    std::sort(by_input.begin(), by_input.end());
    for (std::size_t i : by_input) {
      state_[i].result = result_.jobs.size();
      const JobSpec& job = jobs_[i];
      JobResult r;
      r.id = job.id;
      r.name = job.name;
      r.kind = job.kind;
      r.submit_s = job.submit_s;
      r.swf_record = job.swf_record;
      result_.jobs.push_back(std::move(r));
    }
    for (std::size_t i : order) engine_.at(Time(jobs_[i].submit_s), *this, key(kArrival, i));
  }

  // "w.json: $.jobs[3].run_time_s", or "trace.swf:41: field 4 (run time)" for a job from a trace.
  static std::string field_of(const JobSpec& job, const std::string& json_field, int swf_field) {
    return job.swf_record ? job.where + ": field " + std::to_string(swf_field) + " (" + swf_field_name(swf_field) + ")"
                          : job.where + "." + json_field;
  }

  // Before any event: each job's times, on the slowest processors it may get, and the cost of moving
  // all its data through one link are within kImplausibleS; the iterations the result records fit the
  // memory allowed. Each is refused naming the job's field, so no run computes with infinities.
  void check_plausible(const JobSpec& job, const JobState& s, double& recorded_bytes) const {
    const auto refuse = [&](const std::string& field, const std::string& what, double value) {
      throw InputError(field + ": " + what + " " + csv_number(value) + " s, beyond any plausible time (" +
                       csv_number(kImplausibleS) + " s); expected smaller times or sizes");
    };
    if (!(job.submit_s <= kImplausibleS))
      refuse(field_of(job, "submit_s", kSubmitTime), "a submission at", job.submit_s);
    double slowest = 1;
    for (const SpeedGroup& g : cluster_.groups) slowest = std::min(slowest, g.speed);
    for (const StartOption& o : s.options) {
      const double run_s = job.run_time_at(o.processors) / slowest;
      const std::string field = job.run_time_s ? field_of(job, "run_time_s", kRunTime) : field_of(job, "app", kRunTime);
      if (!(run_s <= kImplausibleS)) refuse(field, "a run on its slowest processors would take", run_s);
      if (!(o.estimate_s <= kImplausibleS))
        refuse(field_of(job, "requested_time_s", kRequestedTime), "an estimate of", o.estimate_s);
    }
    if (job.kind != JobKind::kMalleable) return;
    const ResizeSpec& r = job.resize;
    double move_s = 0;
    if (r.redistribution_s)
      move_s = *r.redistribution_s;
    else if (r.data_bytes > 0 && r.redistribution_bandwidth_bytes_per_s)
      move_s = *r.redistribution_latency_s + r.data_bytes / *r.redistribution_bandwidth_bytes_per_s;
    else if (r.data_bytes > 0 && cluster_.bandwidth_bytes_per_s > 0)
      move_s = cluster_.latency_s + r.data_bytes / cluster_.bandwidth_bytes_per_s;
    if (!(move_s <= kImplausibleS))
      refuse(job.where + ".resize", "moving its data_bytes at its redistribution cost would take", move_s);
    recorded_bytes +=
        static_cast<double>(job.app->iterations) * ((output_.keep_jobs ? kIterationBytesKept : kIterationBytesSummary) +
                                                    static_cast<double>(output_.row_bytes_per_iteration));
    if (output_.max_memory_bytes > 0 && recorded_bytes > static_cast<double>(output_.max_memory_bytes)) {
      throw InputError(job.where + ".app.iterations: " + std::to_string(job.app->iterations) +
                       " iterations, with the malleable jobs before it, would take about " +
                       csv_number(std::round(recorded_bytes / (1 << 20))) + " MiB to record, more than the " +
                       csv_number(std::round(static_cast<double>(output_.max_memory_bytes) / (1 << 20))) +
                       " MiB available; expected fewer, longer iterations (or --summary-only)");
    }
  }

  void request_pass() {
    if (pass_pending_) return;
    pass_pending_ = true;
    engine_.at(Time(now_), *this, key(kPass, 0));
  }

  void set_busy(std::int64_t delta) {
    busy_ += delta;
    if (!output_.keep_utilisation) return;
    auto& u = result_.utilisation;
    if (u.back().time_s == now_)
      u.back().busy = busy_;
    else
      u.push_back({now_, busy_});
  }

  // Accounts the processor-seconds held so far and records the new count.
  void record_allocation(std::size_t j, std::int64_t processors) {
    JobState& s = state_[j];
    JobResult& r = result_.jobs[s.result];
    r.processor_seconds += static_cast<double>(s.processors) * (now_ - s.last_change_s);
    s.last_change_s = now_;
    if (!r.allocation.empty() && r.allocation.back().time_s == now_)
      r.allocation.back().processors = processors;
    else
      r.allocation.push_back({now_, processors});
    r.max_processors = std::max(r.max_processors, processors);
  }

  double slowest_speed(const JobState& s) const {
    double speed = 1;
    for (std::size_t g = 0; g < s.held.size(); ++g) {
      if (s.held[g] > 0) speed = std::min(speed, cluster_.groups[g].speed);
    }
    return speed;
  }

  // Takes n idle processors, fastest first.
  void take(JobState& s, std::int64_t n) {
    HETPERF_CHECK(n <= free_, "allocating more processors than are idle");
    if (s.held.empty()) s.held.assign(cluster_.groups.size(), 0);
    for (std::size_t g = 0; g < free_by_group_.size() && n > 0; ++g) {
      std::int64_t k = std::min(n, free_by_group_[g]);
      free_by_group_[g] -= k;
      s.held[g] += k;
      n -= k;
    }
    free_ = 0;
    for (std::int64_t f : free_by_group_) free_ += f;
  }

  // Gives back n processors, slowest first.
  void give(JobState& s, std::int64_t n) {
    for (std::size_t g = s.held.size(); g-- > 0 && n > 0;) {
      std::int64_t k = std::min(n, s.held[g]);
      s.held[g] -= k;
      free_by_group_[g] += k;
      free_ += k;
      n -= k;
    }
    HETPERF_CHECK(n == 0, "releasing processors a job does not hold");
  }

  void set_release(JobState& s, double end_s) {
    if (s.has_release) releases_.erase(s.release);
    s.release = releases_.emplace(end_s, s.processors);
    s.has_release = true;
  }

  void arrive(std::size_t j) {
    queue_.push({j, jobs_[j].submit_s, &state_[j].options});
    request_pass();
  }

  void pass() {
    pass_pending_ = false;
    if (queue_.empty() || free_ == 0) return;
    SchedulerView view{now_, cluster_.total(), free_, &queue_, &releases_, releases_changed_};
    starts_.clear();
    policy_->select(view, starts_);
    releases_changed_ = false;
    for (const auto& d : starts_) {
      HETPERF_CHECK(queue_.live(d.position), "a job started twice");
      const std::size_t j = queue_[d.position].job;
      queue_.erase(d.position);
      start(j, d.processors);
    }
    queue_.compact();
  }

  void start(std::size_t j, std::int64_t processors) {
    const JobSpec& job = jobs_[j];
    JobState& s = state_[j];
    auto option = std::find_if(s.options.begin(), s.options.end(),
                               [&](const StartOption& o) { return o.processors == processors; });
    HETPERF_CHECK(option != s.options.end(), "policy chose a count the job does not allow");
    take(s, processors);
    s.last_change_s = now_;
    s.processors = processors;
    s.speed = slowest_speed(s);
    set_busy(processors);
    JobResult& r = result_.jobs[s.result];
    r.start_s = now_;
    r.processors = processors;
    r.estimate_s = option->estimate_s;
    r.slowest_speed = s.speed;
    record_allocation(j, processors);
    set_release(s, now_ + option->estimate_s);
    if (job.kind == JobKind::kMalleable) {
      running_malleable_.insert(j);
      s.profile.start_processors = processors;
      begin_iteration(j, 0);
    } else {
      engine_.at(Time(now_ + job.run_time_at(processors) / s.speed), *this, key(kFinish, j));
    }
  }

  void finish(std::size_t j) {
    JobState& s = state_[j];
    releases_changed_ = true;
    JobResult& r = result_.jobs[s.result];
    record_allocation(j, 0);
    running_malleable_.erase(j);
    give(s, s.processors);
    set_busy(-s.processors);
    releases_.erase(s.release);
    s.has_release = false;
    s.held.clear();
    s.held.shrink_to_fit();
    r.end_s = now_;
    r.wait_s = r.start_s - r.submit_s;
    r.run_s = r.end_s - r.start_s;
    r.turnaround_s = r.end_s - r.submit_s;
    // The usual bounded slowdown (Feitelson et al.): short jobs count as running τ seconds.
    r.bounded_slowdown = std::max(1.0, r.turnaround_s / std::max(r.run_s, options_.slowdown_threshold_s));
    if (output_.on_job) output_.on_job(r, s.result);
    if (!output_.keep_jobs) {
      // Only the figures the summary needs stay.
      r.allocation = {};
      r.iterations = {};
      r.name = {};
    }
    request_pass();
  }

  void begin_iteration(std::size_t j, double redistribution_s) {
    JobState& s = state_[j];
    s.iteration_start_s = now_;
    s.pending_redistribution_s = redistribution_s;
    s.next_point_s = now_ + jobs_[j].app->time_s(s.processors) / s.speed;
    engine_.at(Time(s.next_point_s), *this, key(kIterationEnd, j));
  }

  // The other running malleable jobs' shrink points, for a resize decision of job j.
  const std::vector<ShrinkPoint>& shrink_points(std::size_t j) {
    others_.clear();
    for (std::size_t k : running_malleable_) {
      if (k == j) continue;
      const JobState& o = state_[k];
      // A job in its redistribution holds its target once it ends.
      const std::int64_t size = o.target > 0 && o.target < o.processors ? o.target : o.processors;
      ShrinkPoint sp;
      sp.next_resize_s = o.next_point_s;
      if (jobs_[k].app->iterations - o.iterations_done <= 1) {
        sp.can_free = size;  // its next iteration is its last
      } else if (!o.profile.iteration_time_s.empty()) {
        sp.can_free = std::max<std::int64_t>(0, size - o.profile.iteration_time_s.begin()->first);
      }
      others_.push_back(sp);
    }
    return others_;
  }

  // ReSHAPE paper, section 3.2: data moves between the old and the new processor set. Given, or
  // t = l + s/b with s the bytes each of the min(p, q) kept processors exchanges: the fraction
  // 1 - min/max of the global data changes owner, spread over those processors. l and b are the
  // job's own fitted ones when it has them, else the platform network's.
  double redistribution_cost(const JobSpec& job, std::int64_t from, std::int64_t to) const {
    const ResizeSpec& r = job.resize;
    if (r.redistribution_s) return *r.redistribution_s;
    if (r.data_bytes <= 0) return 0;
    double lo = static_cast<double>(std::min(from, to));
    double hi = static_cast<double>(std::max(from, to));
    double per_processor = r.data_bytes * (1 - lo / hi) / lo;
    if (r.redistribution_bandwidth_bytes_per_s) {
      return *r.redistribution_latency_s + per_processor / *r.redistribution_bandwidth_bytes_per_s;
    }
    return cluster_.latency_s + per_processor / cluster_.bandwidth_bytes_per_s;
  }

  // Node-removal policies of the job itself; nullopt when none applies.
  std::optional<std::int64_t> removal(const JobSpec& job, JobState& s) const {
    const ResizeSpec& r = job.resize;
    const std::int64_t p = s.processors;
    if (r.remove_after_iteration && *r.remove_after_iteration == s.iterations_done) {
      std::int64_t want = p - r.remove_processors;
      std::optional<std::int64_t> target;
      for (std::int64_t c : s.configurations) {
        if (c <= want) target = c;
      }
      for (const auto& [c, t] : s.profile.iteration_time_s) {
        if (c <= want && (!target || c > *target)) target = c;
      }
      if (target) return target;
    }
    if (r.min_efficiency && p != s.profile.start_processors) {
      const auto& times = s.profile.iteration_time_s;
      double p0 = static_cast<double>(s.profile.start_processors);
      double efficiency = times.at(s.profile.start_processors) * p0 / (times.at(p) * static_cast<double>(p));
      if (efficiency < *r.min_efficiency) {
        auto below = times.lower_bound(p);
        if (below != times.begin()) return std::prev(below)->first;
      }
    }
    return std::nullopt;
  }

  void iteration_end(std::size_t j) {
    const JobSpec& job = jobs_[j];
    JobState& s = state_[j];
    ++s.iterations_done;
    double measured = now_ - s.iteration_start_s;
    s.profile.iteration_time_s[s.processors] = measured;
    s.profile.history.push_back(
        {s.iterations_done, s.processors, s.iteration_start_s, measured, s.pending_redistribution_s});
    std::int64_t remaining = job.app->iterations - s.iterations_done;
    if (remaining == 0) {
      result_.jobs[s.result].iterations = std::move(s.profile.history);
      finish(j);
      return;
    }
    std::int64_t target = s.processors;
    if (auto removed = removal(job, s)) {
      target = *removed;
      s.profile.sweet_spot = target;  // a removal is permanent: no expansion beyond it
    } else {
      ResizePoint point;
      point.now_s = now_;
      point.job = j;
      point.iteration = s.iterations_done;
      point.remaining = remaining;
      point.processors = s.processors;
      point.configurations = &s.configurations;
      point.free = free_;
      point.releasing = releasing_;
      point.queued = static_cast<std::int64_t>(queue_.size());
      point.queued_need = queue_.empty() ? 0 : queue_[queue_.first()].options->front().processors;
      point.next_resize_s = now_ + job.app->time_s(s.processors) / s.speed;
      if (!queue_.empty()) point.others = &shrink_points(j);
      point.profile = &s.profile;
      target = policy_->resize(point);
    }
    if (target > s.processors && target - s.processors > free_) target = s.processors;
    if (target == s.processors || !job.app->supports(target) || target < 1) {
      begin_iteration(j, 0);
      return;
    }
    double cost = redistribution_cost(job, s.processors, target);
    s.profile.redistribution_s[{s.processors, target}] = cost;
    ++result_.jobs[s.result].resizes;
    if (target > s.processors) {
      // New processors are taken now and are busy during the redistribution.
      s.profile.expanded_from = s.processors;
      take(s, target - s.processors);
      set_busy(target - s.processors);
      record_allocation(j, target);
      s.processors = target;
      s.speed = slowest_speed(s);
    } else {
      s.profile.expanded_from.reset();
      releasing_ += s.processors - target;
    }
    s.target = target;
    s.pending_redistribution_s = cost;
    s.next_point_s = now_ + cost + job.app->time_s(target) / s.speed;
    double speed = s.speed;
    releases_changed_ = true;
    set_release(s, now_ + cost + static_cast<double>(remaining) * job.app->time_s(target) / speed);
    engine_.at(Time(now_ + cost), *this, key(kResizeDone, j));
  }

  void resize_done(std::size_t j) {
    JobState& s = state_[j];
    if (s.target < s.processors) {
      // A shrinking job holds its processors until its data has left them.
      std::int64_t freed = s.processors - s.target;
      releasing_ -= freed;
      give(s, freed);
      set_busy(-freed);
      record_allocation(j, s.target);
      s.processors = s.target;
      s.target = 0;
      s.speed = slowest_speed(s);
      s.release->second = s.processors;
      releases_changed_ = true;
      request_pass();
    }
    begin_iteration(j, s.pending_redistribution_s);
  }

  void summarize() {
    ScheduleSummary& sum = result_.summary;
    sum.jobs = result_.jobs.size();
    sum.skipped = result_.skipped.size();
    sum.events = engine_.events_fired();
    sum.first_submit_s = first_submit_;
    sum.slowdown_threshold_s = options_.slowdown_threshold_s;
    double busy_seconds = 0;
    std::vector<double> waits, turnarounds, slowdowns;
    waits.reserve(sum.jobs);
    turnarounds.reserve(sum.jobs);
    slowdowns.reserve(sum.jobs);
    for (const auto& r : result_.jobs) {
      waits.push_back(r.wait_s);
      turnarounds.push_back(r.turnaround_s);
      slowdowns.push_back(r.bounded_slowdown);
      sum.mean_wait_s += r.wait_s;
      sum.mean_turnaround_s += r.turnaround_s;
      sum.mean_bounded_slowdown += r.bounded_slowdown;
      sum.max_bounded_slowdown = std::max(sum.max_bounded_slowdown, r.bounded_slowdown);
      sum.last_end_s = std::max(sum.last_end_s, r.end_s);
      sum.resizes += r.resizes;
      busy_seconds += r.processor_seconds;
    }
    if (sum.jobs > 0) {
      double n = static_cast<double>(sum.jobs);
      sum.mean_wait_s /= n;
      sum.mean_turnaround_s /= n;
      sum.mean_bounded_slowdown /= n;
    } else {
      sum.last_end_s = first_submit_;
    }
    sum.wait_s = percentiles(std::move(waits));
    sum.turnaround_s = percentiles(std::move(turnarounds));
    sum.bounded_slowdown = percentiles(std::move(slowdowns));
    sum.makespan_s = sum.last_end_s - sum.first_submit_s;
    double capacity = static_cast<double>(cluster_.total()) * sum.makespan_s;
    sum.utilisation = capacity > 0 ? busy_seconds / capacity : 0;
  }

  const Cluster& cluster_;
  const std::vector<JobSpec>& jobs_;
  const ScheduleOptions& options_;
  const ScheduleOutput& output_;
  std::unique_ptr<BatchPolicy> policy_;
  std::vector<JobState> state_;
  std::vector<std::int64_t> free_by_group_;
  std::int64_t free_ = 0;
  std::int64_t busy_ = 0;
  std::int64_t releasing_ = 0;  // processors of shrinking jobs, freed when their redistribution ends
  double now_ = 0;
  double first_submit_ = 0;
  bool pass_pending_ = false;
  bool releases_changed_ = true;  // since the policy last chose: see SchedulerView::releases_changed
  Engine engine_;
  WaitingQueue queue_;
  std::set<std::size_t> running_malleable_;
  std::vector<ShrinkPoint> others_;
  std::multimap<double, std::int64_t> releases_;
  std::vector<StartDecision> starts_;
  ScheduleResult result_;
};

}  // namespace

ScheduleResult simulate_schedule(const Cluster& cluster, const std::vector<JobSpec>& jobs,
                                 const ScheduleOptions& options, std::vector<SkippedJob> pre_skipped,
                                 const ScheduleOutput& output) {
  return Scheduler(cluster, jobs, options, std::move(pre_skipped), output).run();
}

}  // namespace hetperf::sim::batch
