// The ranks of message-passing applications on the engine's shared resources (see rank_world.hpp).
#include "hetperf/simulator/rank_world.hpp"

#include <algorithm>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {

RankWorld::RankWorld(const RankPlatform& platform, RankListener& listener) : platform_(platform), listener_(listener) {
  const std::size_t n = platform.computers.size();
  for (const RankComputer& c : platform.computers) {
    // Work is counted in seconds of one core alone: speed 1.
    processors_.emplace_back(
        engine_, *this,
        ProcessorSpec{c.cores, 1.0, c.core_efficiency, Discipline::kProcessorSharing, c.concurrency_speed});
    disks_.emplace_back(engine_, *this);
  }
  // A partial profile without a network serves single-rank jobs only (bind() refuses the others).
  if (platform.bandwidth_bytes_per_s > 0) {
    const bool costs_cpu = std::any_of(platform.computers.begin(), platform.computers.end(), [](const RankComputer& c) {
      return c.cpu_share_per_send > 0 || c.cpu_share_per_receive > 0;
    });
    network_ = std::make_unique<StarNetwork>(engine_, *this, std::vector<double>(n, platform.bandwidth_bytes_per_s),
                                             costs_cpu);
  }
  waiting_.assign(n, 0);
  mapped_.assign(n, 0);
  sliced_.resize(n);
  served_any_.assign(n, false);
  computing_.assign(n, 0);
}

int RankWorld::add_app(int launch_group) {
  const int a = static_cast<int>(apps_.size());
  auto [g, fresh] =
      group_index_.try_emplace(launch_group < 0 ? -1 - a : launch_group, static_cast<int>(groups_.size()));
  if (fresh) groups_.emplace_back();
  apps_.push_back({g->second, {}, {}});
  return a;
}

int RankWorld::add_rank(int app, std::size_t computer) {
  HETPERF_CHECK(computer < processors_.size(), "rank mapped to an unknown computer");
  const int id = static_cast<int>(ranks_.size());
  ranks_.push_back({app, computer, false, {}, -1});
  apps_[app].ranks.push_back(id);
  groups_[apps_[app].group].ranks.push_back(id);
  ++mapped_[computer];
  inbox_.emplace_back();
  posted_.emplace_back();
  if (sliced_[computer])
    sliced_[computer]->add(static_cast<std::uint32_t>(id));
  else
    maybe_slice(computer);
  return id;
}

// A computer whose ranks outnumber its cores takes turns of slices where its slice is known, provided
// nothing has run there yet (a computer that becomes oversubscribed mid-run keeps processor sharing).
void RankWorld::maybe_slice(std::size_t computer) {
  const RankComputer& spec = platform_.computers[computer];
  if (spec.time_slice_s <= 0 || mapped_[computer] <= spec.cores || served_any_[computer]) return;
  sliced_[computer] =
      std::make_unique<SlicedCores>(engine_, *this, spec.cores, spec.time_slice_s, spec.turn_order_seed);
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r].computer == computer) sliced_[computer]->add(static_cast<std::uint32_t>(r));
  }
}

double RankWorld::memory_bound_speed(std::size_t computer, int busy) const {
  const RankComputer& c = platform_.computers[computer];
  busy = std::clamp(busy, 1, c.cores);
  if (!c.concurrency_speed.empty())
    return c.concurrency_speed[std::min<std::size_t>(busy, c.concurrency_speed.size()) - 1];
  if (c.cores == 1) return 1;
  return 1 - (1 - c.core_efficiency) * (busy - 1) / (c.cores - 1);
}

std::vector<std::pair<int, bool>>::iterator RankWorld::find_handle(Rank& r, int handle) {
  return std::find_if(r.handle_done.begin(), r.handle_done.end(), [&](const auto& h) { return h.first == handle; });
}

// --- waiting ranks poll: each takes `wait_cpu_share` of a core from the computing ones ---
void RankWorld::set_waiting(int rank, bool waiting) {
  Rank& r = ranks_[rank];
  if (r.waiting == waiting) return;
  r.waiting = waiting;
  const std::size_t c = r.computer;
  waiting_[c] += waiting ? 1 : -1;
  processors_[c].set_extra_demand(platform_.computers[c].wait_cpu_share * waiting_[c]);
}

// --- the CPU cost of communication (DPS paper section 4): each transfer streaming out of (into) the
// computer takes per_send (per_receive) of its capacity from the ranks computing there ---
void RankWorld::link_load_changed(std::size_t c) {
  const RankComputer& spec = platform_.computers[c];
  const double taken = spec.cpu_share_per_send * static_cast<double>(network_->streaming_out(c)) +
                       spec.cpu_share_per_receive * static_cast<double>(network_->streaming_in(c));
  processors_[c].set_free_share(std::max(0.0, 1.0 - taken));
}

void RankWorld::complete(int rank) {
  set_waiting(rank, false);
  listener_.completed(rank);
}

void RankWorld::rank_done(int rank) {
  LaunchGroup& g = groups_[apps_[ranks_[rank].app].group];
  set_waiting(rank, true);
  if (++g.done == static_cast<int>(g.ranks.size())) {
    for (int other : g.ranks) {
      set_waiting(other, false);
      if (SlicedCores* s = sliced(ranks_[other].computer)) s->leave(static_cast<std::uint32_t>(other));  // exited
    }
  }
}

// --- compute ---
bool RankWorld::compute(int rank, double seconds, bool memory_bound) {
  const std::size_t c = ranks_[rank].computer;
  served_any_[c] = true;
  if (SlicedCores* s = sliced(c)) {
    // Memory-bound work is slowed by the ranks computing on the other cores as it starts.
    const double speed = memory_bound ? memory_bound_speed(c, ++computing_[c]) : (++computing_[c], 1.0);
    s->compute(static_cast<std::uint32_t>(rank), std::max(0.0, seconds) / speed);
    return false;
  }
  processors_[ranks_[rank].computer].start(static_cast<std::uint32_t>(rank), std::max(0.0, seconds),
                                           memory_bound ? WorkClass::kMemoryBound : WorkClass::kPlain);
  return false;
}

void RankWorld::computed(std::uint32_t token, double) { complete(static_cast<int>(token)); }

void RankWorld::sliced_computed(std::uint32_t token) {
  --computing_[ranks_[token].computer];
  complete(static_cast<int>(token));
}

// --- disk ---
bool RankWorld::disk_write(int rank, std::uint64_t bytes) {
  const std::size_t c = ranks_[rank].computer;
  disks_[c].submit(Duration(static_cast<double>(bytes) / platform_.computers[c].disk_write_bytes_per_s),
                   static_cast<std::uint32_t>(rank));
  return false;
}

void RankWorld::served(std::uint32_t token) {
  const double flush = platform_.computers[ranks_[token].computer].disk_sync_latency_s;
  // Blocked in the kernel as one in MPI is blocked: back on a core after the hand-off, or in its next
  // slice, once flushed.
  if (flush > 0)
    engine_.after(Duration(flush), *this, kSynced | token);
  else
    resume(static_cast<int>(token));
}

// --- messages ---
std::uint32_t RankWorld::new_message() {
  if (!free_messages_.empty()) {
    std::uint32_t id = free_messages_.back();
    free_messages_.pop_back();
    messages_[id] = Message{};
    return id;
  }
  messages_.emplace_back();
  return static_cast<std::uint32_t>(messages_.size() - 1);
}

bool RankWorld::start_transfer(std::uint32_t id) {
  Message& m = messages_[id];
  m.transferring = true;
  const std::size_t from = ranks_[m.src].computer, to = ranks_[m.dst].computer;
  if (from == to && platform_.computers[from].local_message_s) {
    const double t = std::max(0.0, platform_.computers[from].local_message_s(m.bytes, mapped_[from]));
    engine_.after(Duration(t), *this, id);
    return false;
  }
  HETPERF_CHECK(network_, "a message on a platform without a network (bind should have refused it)");
  const auto [last, first] = streams_.try_emplace(pair_key(m), id);
  if (first) return stream(id);
  messages_[last->second].next_in_stream = id;
  last->second = id;
  return false;
}

bool RankWorld::stream(std::uint32_t id) {
  Message& m = messages_[id];
  const std::size_t from = ranks_[m.src].computer, to = ranks_[m.dst].computer;
  double latency = platform_.latency_s, bytes = static_cast<double>(m.bytes);
  if (!platform_.regimes.empty()) {
    // The regime of its size: t = l + s·g alone, as l' = max(l, 0) then s·g + min(l, 0) seconds of
    // streaming at the link's b (a negative intercept shortens the streaming).
    auto r = std::upper_bound(platform_.regimes.begin(), platform_.regimes.end(), m.bytes,
                              [](std::uint64_t b, const WireRegime& w) { return b < w.min_bytes; });
    const WireRegime& w = r == platform_.regimes.begin() ? *r : *std::prev(r);
    // Saturated at 1e250 bytes (ages of streaming): an absurd but finite regime of a profile would
    // otherwise give an infinite stream that never ends.
    constexpr double kMostBytes = 1e250;
    latency = std::max(0.0, w.latency_s);
    bytes = std::min(kMostBytes, std::max(0.0, bytes * w.seconds_per_byte + std::min(0.0, w.latency_s)) *
                                     platform_.bandwidth_bytes_per_s);
  }
  if (!m.eager && platform_.send_buffer_bytes > 0) {
    // The sender's part streams first; what the buffers hold follows once the sender has gone on.
    m.buffered = bytes * std::min(1.0, platform_.send_buffer_bytes / static_cast<double>(m.bytes));
    if (bytes - m.buffered > 0) {
      bytes -= m.buffered;
    } else {  // all of it fits: the send returns as it starts
      m.buffered = 0;
      m.sender_released = true;
    }
  }
  const bool released = m.sender_released;
  network_->send(static_cast<int>(from), static_cast<int>(to), bytes, Duration(latency), id);
  return released;
}

void RankWorld::delivered(std::uint32_t id) {
  Message& m = messages_[id];
  if (m.buffered > 0) {  // the sender's part has been streamed: it goes on, the buffered rest follows
    const double rest = m.buffered;
    m.buffered = 0;
    m.sender_released = true;
    const Message copy = m;
    network_->send(static_cast<int>(ranks_[m.src].computer), static_cast<int>(ranks_[m.dst].computer), rest,
                   Duration(0), id);
    release_sender(copy);
    return;
  }
  stream_done(id);  // before it arrives: its receiver may reuse its slot for a message of this pair
  arrive(id);
}

void RankWorld::stream_done(std::uint32_t id) {
  const Message& m = messages_[id];
  const std::uint32_t next = m.next_in_stream;
  if (next == kNoMessage) {
    streams_.erase(pair_key(m));
    return;
  }
  if (stream(next)) {
    const Message copy = messages_[next];
    release_sender(copy);
  }
}

void RankWorld::release_sender(const Message& m) {
  Rank& sender = ranks_[m.src];
  if (m.send_handle < 0) {
    resume(m.src, m.dst);
    return;
  }
  auto h = find_handle(sender, m.send_handle);
  HETPERF_CHECK(h != sender.handle_done.end(), "a rendezvous send without its handle");
  h->second = true;
  if (sender.waiting_handle == m.send_handle) {
    sender.waiting_handle = -1;
    sender.handle_done.erase(h);
    resume(m.src, m.dst);
  }
}

// A message between two ranks of one computer goes out eagerly up to that computer's limit (its own
// transport), any other up to the network's.
std::uint64_t RankWorld::eager_limit(int src, int dst) const {
  const std::size_t c = ranks_[src].computer;
  const auto& local = platform_.computers[c].local_eager_limit_bytes;
  return c == ranks_[dst].computer && local ? *local : platform_.eager_limit_bytes;
}

// A rank blocked in MPI whose operation is done: on a computer with more ranks than cores it is, with
// the hand-off's probability, off its core, and resumes once scheduled in, taking no share of the
// cores meanwhile (the rank that runs in its place computes). Scheduled in, it holds its core for the
// rest of its slice: a release soon after finds it there more often (RankComputer::handoff_after). A
// rendezvous needs both ends on a core: its sender waits for the longer of the two hand-offs.
double RankWorld::handoff_of(int rank) const {
  const std::size_t c = ranks_[rank].computer;
  if (sliced_[c]) return 0;  // its turns of slices stand for the hand-off (a rendezvous waits for its slice)
  return platform_.computers[c].handoff_after(mapped_[c], engine_.now().s() - ranks_[rank].scheduled_in_s);
}

void RankWorld::resume(int rank, int answered_by) {
  const std::size_t c = ranks_[rank].computer;
  served_any_[c] = true;
  if (SlicedCores* s = sliced(c)) {
    s->resume(static_cast<std::uint32_t>(rank));
    return;
  }
  double handoff = handoff_of(rank);
  if (answered_by >= 0) handoff = std::max(handoff, handoff_of(answered_by));
  if (handoff <= 0) {
    complete(rank);
    return;
  }
  set_waiting(rank, false);
  engine_.after(Duration(handoff), *this, kHandedOff | static_cast<std::uint64_t>(rank));
}

void RankWorld::fire(std::uint64_t id) {
  if (id & kDeferredStart) {
    const auto m = static_cast<std::uint32_t>(id & ~kDeferredStart);
    if (start_transfer(m)) {
      const Message copy = messages_[m];
      release_sender(copy);
    }
    return;
  }
  if (id & kHandedOff) {
    const int rank = static_cast<int>(id & ~kHandedOff);  // the receiver is back on a core
    ranks_[rank].scheduled_in_s = engine_.now().s();
    complete(rank);
    return;
  }
  if (id & kSynced) {
    resume(static_cast<int>(id & ~kSynced));  // its disk write is flushed
    return;
  }
  arrive(static_cast<std::uint32_t>(id));
}

// A message has crossed the network: its sender (rendezvous) and receiver (if waiting) go on, each
// after its hand-off (resume). A receiver that was computing finds the message when it asks for it.
void RankWorld::arrive(std::uint32_t id) {
  Message& m = messages_[id];
  m.arrived = true;
  m.transferring = false;
  const Message copy = m;
  // Once arrived, a message is needed only until its receive takes it (or now, if already taken).
  if (copy.receiver_waiting) free_messages_.push_back(id);
  if (!copy.eager && !copy.sender_released) release_sender(copy);
  if (copy.receiver_waiting) resume(copy.dst);
}

// Posts a message from `rank` to `dst`; true when the sender may go on at once (eager).
bool RankWorld::post_send(int rank, int dst, int tag, std::uint64_t bytes, int handle) {
  const std::uint32_t id = new_message();
  Message& m = messages_[id];
  m.src = rank, m.dst = dst, m.tag = tag, m.bytes = bytes, m.eager = bytes <= eager_limit(rank, dst);
  m.send_handle = handle;
  const bool eager = m.eager;
  bool released = false;
  auto& posted = posted_[dst];
  auto it = std::find(posted.begin(), posted.end(), std::make_pair(rank, tag));
  if (it != posted.end()) {  // the receiver is already waiting for it
    posted.erase(it);
    m.receiver_waiting = true;
    // A rendezvous starts when its receiver answers: on time-sliced cores, off its core, when its slice comes.
    SlicedCores* s = eager ? nullptr : sliced(ranks_[dst].computer);
    if (s && !s->on_core(static_cast<std::uint32_t>(dst))) {
      m.transferring = true;
      engine_.at(Time(s->next_on_core_s(static_cast<std::uint32_t>(dst))), *this, kDeferredStart | id);
      return false;
    }
    released = start_transfer(id);
  } else {
    inbox_[dst].push_back(id);
    if (eager) start_transfer(id);
  }
  return eager || released;
}

bool RankWorld::send(int rank, int dst, int tag, std::uint64_t bytes) {
  if (post_send(rank, dst, tag, bytes, -1)) return true;
  set_waiting(rank, true);
  return false;
}

void RankWorld::isend(int rank, int dst, int tag, std::uint64_t bytes, int handle) {
  // Eager: delivered as far as the sender is concerned; rendezvous: done when the transfer ends.
  Rank& r = ranks_[rank];
  HETPERF_CHECK(find_handle(r, handle) == r.handle_done.end(), "isend with a handle already pending");
  r.handle_done.emplace_back(handle, false);
  const bool done = post_send(rank, dst, tag, bytes, handle);
  if (done) find_handle(ranks_[rank], handle)->second = true;
}

bool RankWorld::wait(int rank, int handle) {
  Rank& r = ranks_[rank];
  auto it = find_handle(r, handle);
  HETPERF_CHECK(it != r.handle_done.end(), "wait on an unknown or finished send handle");
  if (it->second) {
    r.handle_done.erase(it);
    return true;
  }
  r.waiting_handle = handle;
  set_waiting(rank, true);
  return false;
}

bool RankWorld::recv(int rank, int src, int tag) {
  auto& inbox = inbox_[rank];
  auto box = std::find_if(inbox.begin(), inbox.end(),
                          [&](std::uint32_t id) { return messages_[id].src == src && messages_[id].tag == tag; });
  if (box == inbox.end()) {
    posted_[rank].emplace_back(src, tag);
    set_waiting(rank, true);
    return false;
  }
  const std::uint32_t id = *box;
  inbox.erase(box);
  Message& m = messages_[id];
  if (m.arrived) {
    free_messages_.push_back(id);
    return true;
  }
  m.receiver_waiting = true;
  set_waiting(rank, true);
  // Rendezvous: the sender has been waiting; it goes on now if all of its message fits the buffers.
  if (!m.transferring && start_transfer(id)) {
    const Message copy = messages_[id];
    release_sender(copy);
  }
  return false;
}

bool RankWorld::barrier(int rank) {
  App& app = apps_[ranks_[rank].app];
  app.barrier_waiting.push_back(rank);
  if (app.barrier_waiting.size() < app.ranks.size()) {
    set_waiting(rank, true);
    return false;
  }
  std::vector<int> waiting;
  waiting.swap(app.barrier_waiting);
  for (int w : waiting) {
    if (w == rank) continue;
    if (SlicedCores* s = sliced(ranks_[w].computer))
      s->resume(static_cast<std::uint32_t>(w));
    else
      complete(w);
  }
  return true;
}

}  // namespace hetperf::sim
