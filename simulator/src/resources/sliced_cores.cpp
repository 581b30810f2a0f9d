// Time-sliced cores (sliced_cores.hpp).
#include "hetperf/simulator/resources/sliced_cores.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {

SlicedCores::SlicedCores(Engine& engine, SlicedCoresListener& listener, int cores, double slice_s,
                         std::uint64_t turn_order_seed)
    : engine_(engine), listener_(listener), slice_s_(slice_s), turns_(static_cast<std::size_t>(std::max(cores, 1))) {
  HETPERF_CHECK(cores >= 1 && slice_s >= kMinSliceS && slice_s <= kMaxSliceS, "invalid sliced cores");
  if (turn_order_seed != 0) turn_order_.emplace(turn_order_seed);
}

// Inserting each new rank at a uniformly drawn place makes every order of a core's ranks equally likely.
// A rank added while its core's ranks are under way takes the last place, as every rank does without a
// seed, so no turn already counted on changes.
void SlicedCores::add(std::uint32_t token) {
  HETPERF_CHECK(!members_.contains(token), "a rank added twice to its cores");
  Member m;
  m.core = next_core_;
  std::vector<std::uint32_t>& turns = turns_[m.core];
  const bool idle = std::all_of(turns.begin(), turns.end(),
                                [&](std::uint32_t t) { return members_.at(t).pending == Pending::kNone; });
  const std::size_t place = turn_order_ && idle ? turn_order_->index(turns.size() + 1) : turns.size();
  m.index = static_cast<std::int64_t>(place);
  turns.insert(turns.begin() + static_cast<std::ptrdiff_t>(place), token);
  for (std::size_t i = place + 1; i < turns.size(); ++i) members_.at(turns[i]).index = static_cast<std::int64_t>(i);
  next_core_ = (next_core_ + 1) % static_cast<int>(turns_.size());
  members_.emplace(token, m);
}

// Slices are [k·q, (k+1)·q); events land exactly on k·q, so the slice of a boundary is the one it opens.
std::int64_t SlicedCores::slot_at(double t) const {
  auto k = static_cast<std::int64_t>(std::floor(std::min(t / slice_s_, 0x1p62)));
  if (static_cast<double>(k + 1) * slice_s_ <= t)
    ++k;
  else if (static_cast<double>(k) * slice_s_ > t)
    --k;
  return k;
}

// Beyond 2^52 slices (143 years at a 1 ms slice) a double no longer tells one slice from the next: a
// simulation that long is past any turn-taking that matters, and each rank runs as if alone.
std::int64_t SlicedCores::turns_at(const Member& m, double t) const {
  return t / slice_s_ < 0x1p52 ? static_cast<std::int64_t>(turns_[m.core].size()) : 1;
}

std::int64_t SlicedCores::next_own_slot(const Member& m, double t) const {
  const std::int64_t n = turns_at(m, t);
  const std::int64_t k = slot_at(t);
  return k + ((m.index - k % n) % n + n) % n;
}

double SlicedCores::cpu_before(const Member& m, double t) const {
  const std::int64_t n = turns_at(m, t);
  if (n == 1) return t;
  const std::int64_t k = slot_at(t);
  const std::int64_t whole = k > m.index ? (k - 1 - m.index) / n + 1 : 0;  // own slices before slice k
  const double partial = k % n == m.index ? t - static_cast<double>(k) * slice_s_ : 0.0;
  return static_cast<double>(whole) * slice_s_ + partial;
}

double SlicedCores::finish(const Member& m, double t, double work_s) const {
  const std::int64_t n = turns_at(m, t);
  if (n == 1 || (t + work_s * static_cast<double>(turns_[m.core].size())) / slice_s_ >= 0x1p52) return t + work_s;
  const std::int64_t k = next_own_slot(m, t);
  const double start = std::max(t, static_cast<double>(k) * slice_s_);
  // Work within a billionth of a slice of a boundary ends on it: rounding must not cost a whole turn.
  const double eps = 1e-9 * slice_s_;
  const double first = static_cast<double>(k + 1) * slice_s_ - start;
  if (work_s <= first + eps) return start + std::min(work_s, first);
  const double rest = work_s - first;
  const auto more = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil((rest - eps) / slice_s_)));
  const double last = std::clamp(rest - static_cast<double>(more - 1) * slice_s_, 0.0, slice_s_);
  return static_cast<double>(k + n * more) * slice_s_ + last;
}

void SlicedCores::schedule(std::uint32_t token, Member& m) {
  const double now = engine_.now().s();
  double at = now;
  if (m.pending == Pending::kCompute)
    at = finish(m, now, m.remaining_s);
  else if (m.pending == Pending::kResume)
    at = std::max(now, static_cast<double>(next_own_slot(m, now)) * slice_s_);
  engine_.set(m.event, Time(at), *this, token);
}

void SlicedCores::compute(std::uint32_t token, double seconds) {
  auto it = members_.find(token);
  HETPERF_CHECK(it != members_.end() && it->second.pending == Pending::kNone,
                "compute on a busy or unknown sliced rank");
  Member& m = it->second;
  m.pending = Pending::kCompute;
  m.remaining_s = std::max(0.0, seconds);
  m.since_s = engine_.now().s();
  schedule(token, m);
}

void SlicedCores::resume(std::uint32_t token) {
  auto it = members_.find(token);
  HETPERF_CHECK(it != members_.end() && it->second.pending == Pending::kNone,
                "resume of a busy or unknown sliced rank");
  Member& m = it->second;
  if (on_core(token)) {
    listener_.sliced_resumed(token);
    return;
  }
  m.pending = Pending::kResume;
  schedule(token, m);
}

bool SlicedCores::on_core(std::uint32_t token) const {
  const Member& m = members_.at(token);
  return next_own_slot(m, engine_.now().s()) == slot_at(engine_.now().s());
}

double SlicedCores::next_on_core_s(std::uint32_t token) const {
  const double now = engine_.now().s();
  return std::max(now, static_cast<double>(next_own_slot(members_.at(token), now)) * slice_s_);
}

int SlicedCores::core_of(std::uint32_t token) const { return members_.at(token).core; }
std::size_t SlicedCores::sharing(std::uint32_t token) const { return turns_[members_.at(token).core].size(); }

void SlicedCores::leave(std::uint32_t token) {
  auto it = members_.find(token);
  if (it == members_.end()) return;
  const double now = engine_.now().s();
  std::vector<std::uint32_t>& turns = turns_[it->second.core];
  // The others' computes so far, under the turns they had.
  for (std::uint32_t other : turns) {
    Member& o = members_.at(other);
    if (other == token || o.pending != Pending::kCompute) continue;
    o.remaining_s = std::max(0.0, o.remaining_s - (cpu_before(o, now) - cpu_before(o, o.since_s)));
    o.since_s = now;
  }
  engine_.cancel(it->second.event);
  turns.erase(std::find(turns.begin(), turns.end(), token));
  members_.erase(it);
  for (std::size_t i = 0; i < turns.size(); ++i) {
    Member& o = members_.at(turns[i]);
    o.index = static_cast<std::int64_t>(i);
    if (o.pending != Pending::kNone) schedule(turns[i], o);
  }
}

void SlicedCores::fire(std::uint64_t key) {
  const auto token = static_cast<std::uint32_t>(key);
  Member& m = members_.at(token);
  const Pending was = m.pending;
  m.pending = Pending::kNone;
  m.event = EventId{};
  if (was == Pending::kCompute)
    listener_.sliced_computed(token);
  else if (was == Pending::kResume)
    listener_.sliced_resumed(token);
}

}  // namespace hetperf::sim
