// The star network with equal sharing per link direction (see star_network.hpp).
#include "hetperf/simulator/resources/star_network.hpp"

#include <algorithm>
#include <cmath>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {
namespace {

void erase_one(std::vector<std::uint32_t>& v, std::uint32_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

}  // namespace

StarNetwork::StarNetwork(Engine& engine, NetworkListener& listener, std::vector<double> bandwidth_bytes_per_s,
                         bool report_link_load)
    : engine_(engine), listener_(listener), report_link_load_(report_link_load) {
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

std::vector<StarNetwork::Group>::iterator StarNetwork::find_group(std::uint32_t at, std::uint32_t partner) {
  auto& groups = links_[at].groups;
  Group probe;
  probe.partner_rate = rate(partner);
  probe.partner = partner;
  auto it = std::lower_bound(groups.begin(), groups.end(), probe);
  return it != groups.end() && it->partner == partner ? it : groups.end();
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
  auto g = find_group(link, other);
  if (g == l.groups.end()) {
    Group fresh;
    fresh.partner_rate = rate(other);
    fresh.partner = other;
    g = l.groups.insert(std::lower_bound(l.groups.begin(), l.groups.end(), fresh), fresh);
    links_[other].watchers.push_back(link);
  }
  t.prev = kNone;
  t.next = g->head;
  if (g->head != kNone) transfers_[g->head].prev = id;
  g->head = id;
  ++g->count;
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
    auto g = find_group(link, other);
    HETPERF_CHECK(g != l.groups.end(), "a streaming transfer outside its group");
    if (t.prev != kNone)
      transfers_[t.prev].next = t.next;
    else
      g->head = t.next;
    if (t.next != kNone) transfers_[t.next].prev = t.prev;
    if (--g->count == 0) {
      l.groups.erase(g);
      erase_one(links_[other].watchers, link);
    }
  }
  t.at = kNone;
  return left;
}

// The transfers limited by `at` whose other end is `partner` are now limited by `partner`.
void StarNetwork::move_group(std::uint32_t at, std::uint32_t other) {
  advance(at);
  advance(other);
  for (auto g = find_group(at, other); g != links_[at].groups.end(); g = find_group(at, other)) {
    const std::uint32_t id = g->head;
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
  if (!links_[link].watchers.empty()) {
    // Moving a group changes the list: go over a copy (change_count is never re-entered).
    scratch_ = links_[link].watchers;
    watch_moves(link, old_rate, new_rate, scratch_);
  }
  // This link's own groups whose partner is now slower than it move to the partner.
  if (new_rate > old_rate) {
    while (!links_[link].groups.empty() && links_[link].groups.front().partner_rate < new_rate) {
      move_group(link, links_[link].groups.front().partner);
    }
  }
}

void StarNetwork::watch_moves(std::uint32_t link, double old_rate, double new_rate,
                              const std::vector<std::uint32_t>& watchers) {
  for (std::uint32_t at : watchers) {
    // Its group of partner `link` is keyed by the old rate: re-key it.
    auto& groups = links_[at].groups;
    Group probe;
    probe.partner_rate = old_rate;
    probe.partner = link;
    auto it = std::lower_bound(groups.begin(), groups.end(), probe);
    HETPERF_CHECK(it != groups.end() && it->partner == link, "a watcher without its group");
    Group g = *it;
    groups.erase(it);
    g.partner_rate = new_rate;
    groups.insert(std::lower_bound(groups.begin(), groups.end(), g), g);
    if (new_rate < rate(at)) move_group(at, link);
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
  // The state is whole again: listeners may send at once. The scratch vectors are swapped out so that
  // they stay intact whatever the listeners do.
  std::vector<std::uint32_t> done, tokens;
  std::vector<std::size_t> computers;
  done.swap(done_);
  tokens.swap(tokens_);
  computers.swap(computers_);
  tokens.clear();
  computers.clear();
  const bool streamed = key & kLinkEvent;  // else a transfer's latency ended
  if (report_link_load_) {
    auto add_ends = [&](const Transfer& t) {
      for (std::uint32_t link : {t.up, t.down}) {
        if (link != kNone) computers.push_back(link / 2);
      }
    };
    if (streamed) {
      for (std::uint32_t id : done) add_ends(transfers_[id]);
    } else if (transfers_[static_cast<std::uint32_t>(key)].bytes > 0) {
      add_ends(transfers_[static_cast<std::uint32_t>(key)]);  // it started streaming
    }
    std::sort(computers.begin(), computers.end());
    computers.erase(std::unique(computers.begin(), computers.end()), computers.end());
  }
  for (std::uint32_t id : done) {
    tokens.push_back(transfers_[id].token);
    free_transfers_.push_back(id);
  }
  for (std::size_t c : computers) listener_.link_load_changed(c);
  for (std::uint32_t token : tokens) listener_.delivered(token);
  done.clear();
  done_.swap(done);
  tokens_.swap(tokens);
  computers_.swap(computers);
}

}  // namespace hetperf::sim
