// The star network of DPS paper section 4: every computer has a full-duplex link to a central
// crossbar that is never a bottleneck, and "all incoming, respectively outgoing data transfers for a
// given node receive an equal share of the available bandwidth". A transfer of s bytes first waits
// its latency l, then streams at the smaller of its two shares, b_src / (transfers streaming out of
// its source) and b_dst / (transfers streaming into its destination): without contention t = l + s/b
// (DPS paper section 4's formula). One end may be outside the cluster: then only the other link counts.
//
// Sharing in O(log n) per event: a link's streaming transfers all move at its per-share rate b / n,
// so the link keeps a "bytes served per share" clock V and a heap of the transfers it limits keyed by
// the V at which they finish. A transfer is kept at the link that limits it (its bottleneck); when the
// counts change so that the other end becomes the slower one, the transfers of that pair of links move
// together. Per event the cost is O(log n) times the number of distinct links that limit transfers
// crossing the changed link (one for a master/worker star), never a pass over every transfer.
#pragma once

#include <cstdint>
#include <vector>

#include "hetperf/simulator/engine/engine.hpp"

namespace hetperf::sim {

class NetworkListener {
 public:
  virtual void delivered(std::uint32_t token) = 0;
  // The number of transfers streaming out of or into `computer` changed (the CPU cost of
  // communication depends on it, DPS paper section 4).
  virtual void link_load_changed(std::size_t computer) { (void)computer; }

 protected:
  ~NetworkListener() = default;
};

class StarNetwork final : public Handler {
 public:
  static constexpr int kOutside = -1;

  // One link per computer, `bandwidth_bytes_per_s[c]` (> 0) in each direction. With
  // `report_link_load`, the listener hears of every change of a computer's streaming counts.
  StarNetwork(Engine& engine, NetworkListener& listener, std::vector<double> bandwidth_bytes_per_s,
              bool report_link_load = true);
  StarNetwork(const StarNetwork&) = delete;
  StarNetwork& operator=(const StarNetwork&) = delete;

  // Sends `bytes` (>= 0) from computer `src` to `dst` (either may be kOutside, not both); after
  // `latency` and the streaming, `delivered(token)` is called.
  void send(int src, int dst, double bytes, Duration latency, std::uint32_t token);

  std::size_t streaming_out(std::size_t computer) const { return links_[2 * computer].n; }
  std::size_t streaming_in(std::size_t computer) const { return links_[2 * computer + 1].n; }
  std::uint64_t transfers() const { return transfers_started_; }

  void fire(std::uint64_t key) override;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  static constexpr std::uint64_t kLinkEvent = std::uint64_t{1} << 63;

  struct Transfer {
    std::uint32_t token = 0;
    std::uint32_t up = kNone, down = kNone;    // links: 2c (out of c), 2c + 1 (into c)
    std::uint32_t at = kNone;                  // the link whose heap holds it while streaming
    std::uint32_t prev = kNone, next = kNone;  // in its (at, partner) group
    double bytes = 0;
  };
  // The transfers a link limits whose other link is `partner`, a list through Transfer::prev/next.
  // Kept in the link's `groups`, sorted by (the partner's rate, partner): a group must move when its
  // partner becomes the slower end, and the slowest partners come first.
  struct Group {
    double partner_rate = 0;
    std::uint32_t partner = kNone;
    std::uint32_t head = kNone;
    std::uint32_t count = 0;
    bool operator<(const Group& o) const {
      return partner_rate != o.partner_rate ? partner_rate < o.partner_rate : partner < o.partner;
    }
  };
  struct Link {
    double bandwidth = 0;
    std::uint32_t n = 0;  // transfers streaming through it
    double v = 0;         // bytes served per share
    Time last;
    IndexedHeap<std::pair<double, std::uint64_t>> heap;  // the transfers it limits, by finishing V
    EventId timer;
    // Its groups (flat: a link has few partners, and they come and go with every transfer).
    std::vector<Group> groups;
    // Links holding groups whose partner is this link.
    std::vector<std::uint32_t> watchers;
    bool touched = false;
    Link(double b, std::vector<std::uint32_t>* positions) : bandwidth(b), heap(positions) {}
  };

  double rate(std::uint32_t link) const {
    const Link& l = links_[link];
    return l.n == 0 ? std::numeric_limits<double>::infinity() : l.bandwidth / l.n;
  }
  std::uint32_t partner(const Transfer& t) const { return t.at == t.up ? t.down : t.up; }
  // The group of `at` whose partner is `partner`, keyed by the partner's present rate; end() if none.
  std::vector<Group>::iterator find_group(std::uint32_t at, std::uint32_t partner);
  void advance(std::uint32_t link);
  void touch(std::uint32_t link);
  void change_count(std::uint32_t link, int delta);
  void watch_moves(std::uint32_t link, double old_rate, double new_rate, const std::vector<std::uint32_t>& watchers);
  void stream(std::uint32_t id);
  void finish(std::uint32_t id);
  void attach(std::uint32_t id, std::uint32_t link, double remaining_bytes);
  double detach(std::uint32_t id);
  void move_group(std::uint32_t at, std::uint32_t partner);
  void reschedule_touched();

  Engine& engine_;
  NetworkListener& listener_;
  bool report_link_load_;
  std::vector<Link> links_;
  std::vector<Transfer> transfers_;
  std::vector<std::uint32_t> free_transfers_;
  std::vector<std::uint32_t> positions_;
  std::vector<std::uint32_t> touched_, done_, tokens_, scratch_;
  std::vector<std::size_t> computers_;
  std::uint64_t sequence_ = 0, transfers_started_ = 0;
};

}  // namespace hetperf::sim
