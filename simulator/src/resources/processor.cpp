// Processor sharing and FIFO over a computer's cores (see processor.hpp).
#include "hetperf/simulator/resources/processor.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {

const char* to_string(Discipline d) { return d == Discipline::kFifo ? "fifo" : "processor_sharing"; }

namespace {
// Work within this of its end is done: what one step of the clock at `now` cannot resolve.
double tolerance_s(Time now) { return 1e-12 + 1e-12 * now.s(); }
}  // namespace

Processor::Processor(Engine& engine, ProcessorListener& listener, const ProcessorSpec& spec)
    : engine_(engine),
      listener_(listener),
      spec_(spec),
      classes_{Class(&positions_), Class(&positions_), Class(&positions_)},
      last_(engine.now()) {
  HETPERF_CHECK(spec.cores >= 1 && spec.speed > 0 && spec.core_efficiency > 0, "invalid processor spec");
  for (double s : spec.concurrency_speed) HETPERF_CHECK(s > 0, "invalid processor spec: a concurrency speed <= 0");
}

double Processor::share_rate() const {
  if (served_ == 0) return 0;
  const double demand = static_cast<double>(served_) + extra_;
  return spec_.speed * std::min(1.0, spec_.cores * free_ / demand);
}

double Processor::class_rate(std::size_t k) const { return class_rate(k, share_rate()); }

double Processor::class_rate(std::size_t k, double r) const {
  const auto work = static_cast<WorkClass>(k);
  if (work == WorkClass::kMessageOverhead) return r;
  if (work == WorkClass::kPlain || spec_.cores <= 1) return r / (1 + alpha_);
  const std::size_t busy = std::min(served_, static_cast<std::size_t>(spec_.cores));
  if (const auto& s = spec_.concurrency_speed; !s.empty()) return r / (1 + alpha_) * s[std::min(busy, s.size()) - 1];
  return r / (1 + alpha_) * (1 - (1 - spec_.core_efficiency) * (static_cast<double>(busy) - 1) / (spec_.cores - 1));
}

void Processor::advance() {
  const Time now = engine_.now();
  const double dt = (now - last_).s();
  last_ = now;
  if (dt <= 0 || served_ == 0) return;
  // An empty class's clock need not run: a client joining it is keyed from wherever it stands.
  const double share = share_rate();
  for (std::size_t k = 0; k < classes_.size(); ++k) {
    if (classes_[k].heap.empty()) continue;
    const double r = class_rate(k, share);
    classes_[k].v += r * dt;
    if (static_cast<WorkClass>(k) != WorkClass::kMessageOverhead) classes_[k].m += r * alpha_ * dt;
  }
  busy_s_ += dt;
  busy_core_s_ += std::min(static_cast<double>(served_), static_cast<double>(spec_.cores)) * dt;
}

double Processor::busy_s() {
  advance();
  return busy_s_;
}

double Processor::busy_core_s() {
  advance();
  return busy_core_s_;
}

Processor::Client Processor::start(std::uint32_t token, double work, WorkClass work_class) {
  advance();
  Client c;
  if (free_clients_.empty()) {
    c = static_cast<Client>(clients_.size());
    clients_.emplace_back();
  } else {
    c = free_clients_.back();
    free_clients_.pop_back();
  }
  clients_[c] = {token, std::max(0.0, work), 0, work_class, true, false};
  if (spec_.discipline == Discipline::kFifo && served_ >= static_cast<std::size_t>(spec_.cores)) {
    fifo_.push_back(c);
  } else {
    serve(c);
  }
  reschedule();
  return c;
}

void Processor::serve(Client c) {
  ClientState& s = clients_[c];
  Class& k = classes_[cls(s)];
  s.served = true;
  s.m_start = k.m;
  k.heap.push(c, {k.v + s.work, sequence_++});
  ++served_;
}

void Processor::admit() {
  while (!fifo_.empty() && served_ < static_cast<std::size_t>(spec_.cores)) {
    Client c = fifo_.front();
    fifo_.pop_front();
    serve(c);
  }
}

Processor::Removed Processor::remove(Client c) {
  advance();
  ClientState& s = clients_[c];
  HETPERF_CHECK(s.live, "removing a client that is not on the processor");
  Removed r;
  if (s.served) {
    Class& k = classes_[cls(s)];
    r.remaining_work = std::max(0.0, k.heap.key(c).first - k.v);
    r.slowdown_work = k.m - s.m_start;
    k.heap.erase(c);
    --served_;
    admit();
  } else {
    r.remaining_work = s.work;
    fifo_.erase(std::find(fifo_.begin(), fifo_.end(), c));
  }
  s.live = false;
  free_clients_.push_back(c);
  reschedule();
  return r;
}

void Processor::set_slowdown(double alpha) {
  if (alpha == alpha_) return;
  advance();
  alpha_ = alpha;
  reschedule();
}

void Processor::set_free_share(double free) {
  if (free == free_) return;
  advance();
  free_ = std::clamp(free, 0.0, 1.0);
  reschedule();
}

void Processor::set_extra_demand(double clients) {
  if (clients == extra_) return;
  advance();
  extra_ = std::max(0.0, clients);
  reschedule();
}

void Processor::reschedule() {
  double next = std::numeric_limits<double>::infinity();
  const double share = share_rate();
  for (std::size_t k = 0; k < classes_.size(); ++k) {
    const Class& c = classes_[k];
    if (c.heap.empty()) continue;
    const double r = class_rate(k, share);
    const double left = std::max(0.0, c.heap.top_key().first - c.v);
    if (left == 0)
      next = 0;
    else if (r > 0)
      next = std::min(next, left / r);
  }
  if (std::isinf(next)) {
    engine_.cancel(timer_);  // nothing to serve, or no capacity left: a change of rate reschedules
  } else {
    engine_.set(timer_, engine_.now() + Duration(next), *this);
  }
}

void Processor::fire(std::uint64_t) {
  timer_ = {};
  advance();
  done_.clear();
  const double tol = tolerance_s(engine_.now());
  const double share = share_rate();
  for (std::size_t k = 0; k < classes_.size(); ++k) {
    Class& c = classes_[k];
    if (c.heap.empty()) continue;
    const double r = class_rate(k, share);
    while (!c.heap.empty()) {
      const double end = c.heap.top_key().first;
      if (end - c.v > std::max(r * tol, 1e-12 * std::abs(end))) break;
      Client id = c.heap.pop();
      ClientState& s = clients_[id];
      done_.emplace_back(s.token, c.m - s.m_start);
      s.live = false;
      free_clients_.push_back(id);
    }
  }
  served_ -= done_.size();
  admit();
  reschedule();
  // The state is whole again: the listeners may start new work here at once.
  auto done = std::move(done_);
  for (const auto& [token, slowdown] : done) listener_.computed(token, slowdown);
  done.clear();
  done_ = std::move(done);
}

}  // namespace hetperf::sim
