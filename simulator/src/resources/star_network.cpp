// The star network with equal sharing per link direction (see star_network.hpp).
#include "hetperf/simulator/resources/star_network.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {

StarNetwork::StarNetwork(Engine& engine, NetworkListener& listener, std::vector<double> bandwidth_bytes_per_s)
    : engine_(engine), listener_(listener) {
  links_.reserve(2 * bandwidth_bytes_per_s.size());
  for (double b : bandwidth_bytes_per_s) {
    HETPERF_CHECK(b > 0 && std::isfinite(b), "link bandwidth must be positive and finite");
    links_.emplace_back(b, &positions_);
    links_.emplace_back(b, &positions_);
  }
}

void StarNetwork::send(int src, int dst, double bytes, Duration latency, std::uint32_t token) {
  HETPERF_CHECK(src != kOutside || dst != kOutside, "a transfer needs an end inside the cluster");
  std::uint32_t id;
  if (free_transfers_.empty()) {
    id = static_cast<std::uint32_t>(transfers_.size());
    transfers_.emplace_back();
  } else {
    id = free_transfers_.back();
    free_transfers_.pop_back();
  }
  Transfer& t = transfers_[id];
  t = Transfer{};
  t.token = token;
  t.bytes = std::max(0.0, bytes);
  if (src != kOutside) t.up = static_cast<std::uint32_t>(2 * src);
  if (dst != kOutside) t.down = static_cast<std::uint32_t>(2 * dst + 1);
  ++transfers_started_;
  engine_.after(Duration(std::max(0.0, latency.s())), *this, id);
}

void StarNetwork::advance(std::uint32_t link) {
  Link& l = links_[link];
  const Time now = engine_.now();
  if (l.n > 0) l.v += l.bandwidth / l.n * (now - l.last).s();
  l.last = now;
}

void StarNetwork::touch(std::uint32_t link) {
  if (!links_[link].touched) {
    links_[link].touched = true;
    touched_.push_back(link);
  }
}

// Puts a streaming transfer in `link`'s heap and in its group there.
void StarNetwork::attach(std::uint32_t id, std::uint32_t link, double remaining_bytes) {
  Transfer& t = transfers_[id];
  Link& l = links_[link];
  t.at = link;
  l.heap.push(id, {l.v + remaining_bytes, sequence_++});
  touch(link);
  const std::uint32_t other = partner(t);
  if (other == kNone) return;
  Group& g = groups_[group_key(link, other)];
  t.prev = kNone;
  t.next = g.head;
  if (g.head != kNone) transfers_[g.head].prev = id;
  g.head = id;
  if (g.count++ == 0) {
    l.own.insert({rate(other), other});
    links_[other].watchers.insert(link);
  }
}

// Takes a streaming transfer out of its link's heap and group; returns the bytes it has left.
double StarNetwork::detach(std::uint32_t id) {
  Transfer& t = transfers_[id];
  const std::uint32_t link = t.at;
  Link& l = links_[link];
  advance(link);
  const double left = std::max(0.0, l.heap.key(id).first - l.v);
  l.heap.erase(id);
  touch(link);
  const std::uint32_t other = partner(t);
  if (other != kNone) {
    auto it = groups_.find(group_key(link, other));
    Group& g = it->second;
    if (t.prev != kNone) transfers_[t.prev].next = t.next;
    else g.head = t.next;
    if (t.next != kNone) transfers_[t.next].prev = t.prev;
    if (--g.count == 0) {
      l.own.erase({rate(other), other});
      links_[other].watchers.erase(link);
      groups_.erase(it);
    }
  }
  t.at = kNone;
  return left;
}

// The transfers limited by `at` whose other end is `partner` are now limited by `partner`.
void StarNetwork::move_group(std::uint32_t at, std::uint32_t other) {
  advance(at);
  advance(other);
  while (true) {
    auto it = groups_.find(group_key(at, other));
    if (it == groups_.end()) break;
    const std::uint32_t id = it->second.head;
    const double left = detach(id);
    attach(id, other, left);
  }
}

// The number of transfers streaming through `link` changes by `delta`: the link's rate changes, and
// with it which end limits the transfers crossing it.
void StarNetwork::change_count(std::uint32_t link, int delta) {
  advance(link);
  const double old_rate = rate(link);
  links_[link].n = static_cast<std::uint32_t>(static_cast<int>(links_[link].n) + delta);
  const double new_rate = rate(link);
  touch(link);
  // Groups elsewhere whose partner is this link: their key follows its rate; if this link is now
  // the slower end, they move here.
  std::vector<std::uint32_t> watchers(links_[link].watchers.begin(), links_[link].watchers.end());
  for (std::uint32_t at : watchers) {
    Link& l = links_[at];
    l.own.erase({old_rate, link});
    l.own.insert({new_rate, link});
    if (new_rate < rate(at)) move_group(at, link);
  }
  // This link's own groups whose partner is now slower than it move to the partner.
  if (new_rate > old_rate) {
    while (!links_[link].own.empty() && links_[link].own.begin()->first < new_rate) {
      move_group(link, links_[link].own.begin()->second);
    }
  }
}

// After its latency a transfer starts sharing bandwidth.
void StarNetwork::stream(std::uint32_t id) {
  const Transfer t = transfers_[id];
  for (std::uint32_t link : {t.up, t.down}) {
    if (link != kNone) change_count(link, +1);
  }
  std::uint32_t at = t.up;
  if (at == kNone || (t.down != kNone && rate(t.down) < rate(t.up))) at = t.down;
  advance(at);
  attach(id, at, t.bytes);
}

void StarNetwork::finish(std::uint32_t id) {
  detach(id);
  const Transfer t = transfers_[id];
  for (std::uint32_t link : {t.up, t.down}) {
    if (link != kNone) change_count(link, -1);
  }
}

void StarNetwork::reschedule_touched() {
  const Time now = engine_.now();
  for (std::uint32_t link : touched_) {
    Link& l = links_[link];
    l.touched = false;
    if (l.heap.empty()) {
      engine_.cancel(l.timer);
      continue;
    }
    advance(link);
    const double left = std::max(0.0, l.heap.top_key().first - l.v);
    engine_.set(l.timer, now + Duration(left / rate(link)), *this, kLinkEvent | link);
  }
  touched_.clear();
}

void StarNetwork::fire(std::uint64_t key) {
  done_.clear();
  if (key & kLinkEvent) {
    const auto link = static_cast<std::uint32_t>(key & ~kLinkEvent);
    Link& l = links_[link];
    l.timer = {};
    advance(link);
    const double tol = rate(link) * (1e-12 + 1e-12 * engine_.now().s());
    while (!l.heap.empty() && l.heap.top_key().first - l.v <= std::max(tol, 1e-12 * std::abs(l.heap.top_key().first))) {
      done_.push_back(l.heap.top());
      finish(l.heap.top());
    }
    touch(link);
  } else {
    const auto id = static_cast<std::uint32_t>(key);
    if (transfers_[id].bytes > 0) {
      stream(id);
    } else {
      done_.push_back(id);  // nothing to stream: it arrives with its latency
    }
  }
  reschedule_touched();
  // The state is whole again: listeners may send at once.
  std::vector<std::uint32_t> done;
  done.swap(done_);
  std::vector<std::size_t> computers;
  for (std::uint32_t id : done) {
    const Transfer& t = transfers_[id];
    for (std::uint32_t link : {t.up, t.down}) {
      if (link != kNone) computers.push_back(link / 2);
    }
  }
  if (!(key & kLinkEvent)) {  // a transfer started streaming: its ends' loads changed
    const Transfer& t = transfers_[static_cast<std::uint32_t>(key)];
    if (t.bytes > 0) {
      for (std::uint32_t link : {t.up, t.down}) {
        if (link != kNone) computers.push_back(link / 2);
      }
    }
  }
  std::vector<std::uint32_t> tokens;
  tokens.reserve(done.size());
  for (std::uint32_t id : done) {
    tokens.push_back(transfers_[id].token);
    free_transfers_.push_back(id);
  }
  std::sort(computers.begin(), computers.end());
  computers.erase(std::unique(computers.begin(), computers.end()), computers.end());
  for (std::size_t c : computers) listener_.link_load_changed(c);
  for (std::uint32_t token : tokens) listener_.delivered(token);
  done.clear();
  if (done_.empty()) done_.swap(done);
}

}  // namespace hetperf::sim
