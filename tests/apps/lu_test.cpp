// Tests for apps/src/lu.cpp's communication structure, run in the simulated back-end (which issues
// the operations the real one does, tests/cli/lu_variants_mpi.sh): who sends the panel to whom in each
// broadcast, and where the PM shares go (DPS paper section 6; docs/apps.md).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <utility>

#include "hetperf/apps/lu.hpp"
#include "hetperf/apps/sim/sim_runtime.hpp"

using namespace hetperf::apps;

namespace {

constexpr int kTagPanel = 1, kTagShare = 6, kTagProduct = 7;  // lu.cpp's message tags

std::vector<TraceEvent> simulate_lu(const LuConfig& cfg, int ranks) {
  SimPlatform p;
  for (int i = 0; i < ranks; ++i) {
    SimComputer c;
    c.name = "c" + std::to_string(i);
    p.computers.push_back(c);
  }
  p.latency_s = 1e-5;
  p.bandwidth_bytes_per_s = 1e8;
  p.kernel_time = [](const KernelCall& k, std::size_t) { return k.m * 1e-9 * k.n * std::max(1, k.k); };
  std::vector<std::size_t> mapping(ranks);
  for (int i = 0; i < ranks; ++i) mapping[i] = i;
  LuResult result;
  return simulate_app(p, mapping, [&](Runtime& rt) { return lu_rank(rt, cfg, result); }).events;
}

// The (sender, receiver) pairs of the panel messages of iteration k.
std::multiset<std::pair<int, int>> panel_edges(const std::vector<TraceEvent>& events, int k) {
  std::multiset<std::pair<int, int>> out;
  for (const auto& e : events) {
    if (e.iteration == k && e.tag == kTagPanel && (e.op == "send" || e.op == "isend")) out.insert({e.rank, e.peer});
  }
  return out;
}

}  // namespace

TEST_CASE("apps: LU panel broadcasts: the owner sends to all, a binomial tree, or an increasing ring") {
  LuConfig cfg;
  cfg.n = 8 * 16, cfg.r = 16;  // 8 ranks, one block each
  using E = std::multiset<std::pair<int, int>>;
  cfg.bcast = LuBcast::kSequential;
  auto events = simulate_lu(cfg, 8);
  CHECK(panel_edges(events, 0) == E{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}});
  CHECK(panel_edges(events, 3) == E{{3, 0}, {3, 1}, {3, 2}, {3, 4}, {3, 5}, {3, 6}, {3, 7}});
  cfg.bcast = LuBcast::kTree;
  events = simulate_lu(cfg, 8);
  // MPICH's binomial tree from the root: 0 -> 4, 2, 1; 4 -> 6, 5; 2 -> 3; 6 -> 7.
  CHECK(panel_edges(events, 0) == E{{0, 4}, {0, 2}, {0, 1}, {4, 6}, {4, 5}, {2, 3}, {6, 7}});
  // Numbered from the owner (rank 3): relative q is rank (q + 3) mod 8.
  CHECK(panel_edges(events, 3) == E{{3, 7}, {3, 5}, {3, 4}, {7, 1}, {7, 0}, {5, 6}, {1, 2}});
  // Panel 6 of 8 reaches the two ranks still updating blocks and the others too (row flips).
  CHECK(panel_edges(events, 6).size() == 7);
  cfg.bcast = LuBcast::kRing;
  events = simulate_lu(cfg, 8);
  CHECK(panel_edges(events, 0) == E{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}});
  CHECK(panel_edges(events, 5) == E{{5, 6}, {6, 7}, {7, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}});
}

TEST_CASE("apps: LU broadcast order: the tree sends to its largest subtree first") {
  LuConfig cfg;
  cfg.n = 8 * 16, cfg.r = 16, cfg.bcast = LuBcast::kTree;
  std::vector<int> order;
  for (const auto& e : simulate_lu(cfg, 8)) {
    if (e.rank == 0 && e.iteration == 0 && e.op == "send" && e.tag == kTagPanel) order.push_back(e.peer);
  }
  CHECK(order == std::vector<int>{4, 2, 1});
}

TEST_CASE("apps: LU PM sends share t of a block to the owner's t-th successor and splits every update") {
  LuConfig cfg;
  cfg.n = 12 * 32, cfg.r = 32, cfg.parallel_multiply = 4;  // basic: no look-ahead
  const auto pm = simulate_lu(cfg, 4);
  cfg.parallel_multiply = 1;
  const auto plain = simulate_lu(cfg, 4);
  auto count = [](const std::vector<TraceEvent>& ev, const std::string& op) {
    return std::count_if(ev.begin(), ev.end(), [&](const TraceEvent& e) { return e.op == op; });
  };
  CHECK(count(pm, "gemm") == 4 * count(plain, "gemm"));  // each trailing update in 4 shares
  CHECK(count(pm, "trsm") == count(plain, "trsm"));
  CHECK(count(pm, "getrf") == count(plain, "getrf"));
  // Every factored panel is copied to be sent, and every share too: 12 panels, 3 shares of each
  // block right of the panel (66 of them).
  CHECK(count(plain, "pack") == 12);
  CHECK(count(pm, "pack") == 12 + 3 * 66);
  // Iteration 0: rank 1 owns blocks 1, 5, 9, all to the right; shares 1, 2, 3 go to ranks 2, 3, 0,
  // each r x r/4 doubles, and come back as (n - r) x r/4 products.
  std::map<int, int> shares_to, products_from;
  for (const auto& e : pm) {
    if (e.rank != 1 || e.iteration != 0) continue;
    if (e.op == "isend" && e.tag == kTagShare) {
      ++shares_to[e.peer];
      CHECK(e.bytes == 8u * 32 * 8);
    }
    if (e.op == "recv" && e.tag == kTagProduct) {
      ++products_from[e.peer];
      CHECK(e.bytes == 8u * (12 * 32 - 32) * 8);
    }
    if (e.op == "gemm") CHECK(e.n == 8);  // every multiplication is one share wide
  }
  CHECK(shares_to == std::map<int, int>{{0, 3}, {2, 3}, {3, 3}});
  CHECK(products_from == shares_to);
  // Every isend is waited for.
  CHECK(count(pm, "isend") == count(pm, "wait"));
}

TEST_CASE("apps: LU PM leaves the look-ahead rank out of its iteration's exchange") {
  LuConfig cfg;
  cfg.n = 8 * 32, cfg.r = 32, cfg.parallel_multiply = 2, cfg.variant = LuVariant::kPipelined;
  const auto events = simulate_lu(cfg, 4);
  for (int k = 0; k + 1 < 8; ++k) {
    const int ahead = (k + 1) % 4;  // owner of block k + 1 factors it during iteration k
    for (const auto& e : events) {
      if (e.iteration != k || (e.tag != kTagShare && e.tag != kTagProduct)) continue;
      CHECK(e.rank != ahead);
      CHECK(e.peer != ahead);
    }
  }
  // The predecessor of the look-ahead rank keeps the share it would have sent there: in iteration 0,
  // rank 0's only helper would be rank 1, so it sends nothing and updates its block 4 whole, while it
  // still computes rank 3's share of blocks 3 and 7.
  int sent = 0, whole = 0, served = 0;
  for (const auto& e : events) {
    if (e.rank != 0 || e.iteration != 0) continue;
    sent += e.tag == kTagShare && e.op == "isend";
    whole += e.op == "gemm" && e.n == 32;
    served += e.op == "gemm" && e.n == 16;
  }
  CHECK(sent == 0);
  CHECK(whole == 1);
  CHECK(served == 2);
}

TEST_CASE("apps: simulated LU with PM and every broadcast is deterministic and free of deadlock") {
  for (auto variant : {LuVariant::kBasic, LuVariant::kPipelined, LuVariant::kFlowControl}) {
    for (auto bcast : {LuBcast::kSequential, LuBcast::kTree, LuBcast::kRing}) {
      LuConfig cfg;
      cfg.n = 10 * 48, cfg.r = 48, cfg.variant = variant, cfg.bcast = bcast, cfg.parallel_multiply = 3, cfg.window = 1;
      cfg.remove = 2, cfg.remove_after_iteration = 3;         // 5 ranks, 3 stay: S = 3 still fits
      auto a = simulate_lu(cfg, 5), b = simulate_lu(cfg, 5);  // a deadlock stops the simulation
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(a[i].end_s == b[i].end_s);
    }
  }
}
