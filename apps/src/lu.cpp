// Block LU factorisation, written once against Runtime (see lu.hpp).
#include "hetperf/apps/lu.hpp"

#include <algorithm>

#include "hetperf/model/error.hpp"

namespace hetperf::apps {
namespace {

enum LuTag : int {
  kTagPanel = 1,
  kTagPivots = 2,
  kTagHandOff = kLuHandOffTag,
  kTagGather = 4,
  kTagSync = 5,
  kTagShare = 6,    // PM: a column share of a solved block T12, owner -> helper
  kTagProduct = 7,  // PM: the helper's product L21 · share, helper -> owner
};

// Owner of each block column, and which ranks are still in the computation, in O(1) state whatever
// the number of blocks and ranks (the simulated back-end runs thousands of ranks, each with its own
// copy): the active ranks are always the first `active` (the ranks that join at an expansion are the
// highest-numbered, and so are those that leave at a removal), and the blocks are dealt round-robin
// over the first `cycle` ranks, block j on rank j mod cycle. After a removal the last `removed` ranks
// of that cycle are gone: the i-th of their blocks (in increasing j) is on survivor i mod active.
struct Layout {
  int active = 0;
  int cycle = 1;
  int removed = 0;
  int owner(int j) const {
    const int c = j % cycle, kept = cycle - removed;
    if (c < kept) return c;
    return static_cast<int>((static_cast<std::int64_t>(j / cycle) * removed + (c - kept)) % active);
  }
  bool is_active(int rank) const { return rank < active; }
  // The active rank `t` places after `rank` in the active ranks' cyclic order (t may be negative).
  int shifted(int rank, int t) const { return ((rank + t) % active + active) % active; }
};

// Where a rank stands in the broadcast of a panel from `root` to the active ranks: whom it receives
// from (-1: it is the root) and whom it sends to, in order. Computed once per panel and rank with no
// allocation: the sequential root's children are every other active rank (a range, not a list), a
// binomial tree's at most one per bit of the rank count.
struct BcastPeers {
  int parent = -1;
  bool all_others = false;  // the children are every active rank but `root`, in rank order
  int root = 0, active = 0;
  int listed = 0;
  int list[32] = {};
  int count() const { return all_others ? active - 1 : listed; }
  int child(int i) const { return all_others ? (i < root ? i : i + 1) : list[i]; }
};

BcastPeers bcast_peers(LuBcast kind, const Layout& layout, int root, int me) {
  BcastPeers out;
  const int a = layout.active;
  const int rel = (me - root + a) % a;  // position relative to the root
  auto rank_at = [&](int relative) { return (relative + root) % a; };
  switch (kind) {
    case LuBcast::kSequential:  // the root sends to every other rank, in rank order
      if (rel != 0) {
        out.parent = root;
        break;
      }
      out.all_others = true, out.root = root, out.active = a;
      break;
    case LuBcast::kTree: {  // binomial tree, as MPICH's MPI_Bcast for short messages
      int mask = 1;
      for (; mask < a; mask <<= 1) {
        if (rel & mask) {
          out.parent = rank_at(rel - mask);
          break;
        }
      }
      for (mask >>= 1; mask > 0; mask >>= 1) {  // the largest subtree first
        if (rel + mask < a) out.list[out.listed++] = rank_at(rel + mask);
      }
      break;
    }
    case LuBcast::kRing:  // HPL's increasing ring ("1ring"): each rank passes it on to the next
      if (rel > 0) out.parent = rank_at(rel - 1);
      if (rel + 1 < a) out.list[out.listed++] = rank_at(rel + 1);
      break;
  }
  return out;
}

// A barrier among the active ranks only, by messages (ranks that left take no part): everyone
// reports to the first active rank, which releases them.
Task group_barrier(Runtime& rt, const Layout& layout) {
  const int root = 0;
  if (rt.rank() == root) {
    for (int p = 1; p < layout.active; ++p) co_await rt.recv(p, kTagSync, nullptr, 0);
    for (int p = 1; p < layout.active; ++p) co_await rt.send(p, kTagSync, nullptr, 0);
  } else {
    co_await rt.send(root, kTagSync, nullptr, 0);
    co_await rt.recv(root, kTagSync, nullptr, 0);
  }
}

// Ranks that run from the start: all but those that join at the expansion.
int first_ranks(const LuConfig& cfg, int ranks) { return ranks - cfg.expand; }

// Whether the owners of the block columns change at the end of iteration k.
bool layout_changes_after(const LuConfig& cfg, int k) {
  return (cfg.remove > 0 && k == cfg.remove_after_iteration) || (cfg.expand > 0 && k == cfg.expand_after_iteration);
}

// Expansion (ReSHAPE paper section 3.2): every rank becomes active and the block columns are laid out
// block-cyclically over all of them (block j on rank j mod P); each moved block goes from its old
// owner to its new one, in increasing j on every rank, so the sends and receives pair up in order.
Task expand_layout(Runtime& rt, const LuConfig& cfg, Layout& layout, std::vector<std::vector<double>>& block,
                   std::vector<int>& my_blocks) {
  const int ranks = rt.size(), me = rt.rank(), blocks = cfg.n / cfg.r;
  const bool data = rt.holds_data();
  const std::uint64_t bytes = sizeof(double) * static_cast<std::uint64_t>(cfg.n) * cfg.r;
  for (int j = 0; j < blocks; ++j) {
    const int to = j % ranks, from = layout.owner(j);
    if (to == from) continue;
    if (from == me) {
      co_await rt.send(to, kTagHandOff, data ? block[j].data() : nullptr, bytes);
      if (data) {
        block[j].clear();
        block[j].shrink_to_fit();
      }
    } else if (to == me) {
      if (data) block[j].resize(static_cast<std::size_t>(cfg.n) * cfg.r);
      co_await rt.recv(from, kTagHandOff, data ? block[j].data() : nullptr, bytes);
    }
  }
  layout = Layout{ranks, ranks, 0};
  my_blocks.clear();
  for (int j = me; j < blocks; j += ranks) my_blocks.push_back(j);
}

}  // namespace

std::string LuConfig::validate(int ranks) const {
  if (n <= 0) return "--n " + std::to_string(n) + ": expected a positive matrix order";
  if (r <= 0) return "--r " + std::to_string(r) + ": expected a positive block width";
  if (window < 1) return "--window " + std::to_string(window) + ": expected at least 1 outstanding send";
  if (remove < 0) return "--remove " + std::to_string(remove) + ": expected a non-negative count";
  if (expand < 0) return "--expand " + std::to_string(expand) + ": expected a non-negative count";
  if (parallel_multiply < 1) {
    return "--parallel-multiply " + std::to_string(parallel_multiply) + ": expected at least 1 sub-block";
  }
  // The rules between options are the workload reader's, named by the program's flags here.
  auto v = lu_violation(LuSpec{n, r, variant, window, remove, remove_after_iteration, expand, expand_after_iteration,
                               bcast, parallel_multiply},
                        ranks);
  if (!v) return {};
  if (v->field == "r") return "--r " + std::to_string(r) + ": expected " + v->expected;
  if (v->field == "parallel_multiply") {
    return "--parallel-multiply " + std::to_string(parallel_multiply) + ": expected " + v->expected;
  }
  if (v->field == "remove.ranks") return "--remove " + std::to_string(remove) + ": expected " + v->expected;
  if (v->field == "expand.ranks") return "--expand " + std::to_string(expand) + ": expected " + v->expected;
  if (v->field == "expand.after_iteration") {
    return "--expand-after-iteration " + std::to_string(expand_after_iteration) + ": expected " + v->expected;
  }
  return "--after-iteration " + std::to_string(remove_after_iteration) + ": expected " + v->expected;
}

LuVariant parse_lu_variant(const std::string& name) {
  if (name == "basic") return LuVariant::kBasic;
  if (name == "pipelined") return LuVariant::kPipelined;
  if (name == "flow_control") return LuVariant::kFlowControl;
  throw InputError("--variant " + name + ": expected basic, pipelined or flow_control");
}

LuBcast parse_lu_bcast(const std::string& name) {
  if (name == "sequential") return LuBcast::kSequential;
  if (name == "tree") return LuBcast::kTree;
  if (name == "ring") return LuBcast::kRing;
  throw InputError("--bcast " + name + ": expected sequential, tree or ring");
}

double lu_matrix_element(std::uint64_t seed, int i, int j) {
  std::uint64_t z =
      seed * 0x9e3779b97f4a7c15ULL + (static_cast<std::uint64_t>(i) << 32 | static_cast<std::uint32_t>(j));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
}

int lu_ranks_in_iteration(const LuConfig& cfg, int ranks, int k) {
  if (cfg.expand > 0 && k <= cfg.expand_after_iteration) return first_ranks(cfg, ranks);
  return cfg.remove > 0 && k > cfg.remove_after_iteration ? ranks - cfg.remove : ranks;
}

Task lu_rank(Runtime& rt, const LuConfig& cfg, LuResult& result) {
  const int n = cfg.n, r = cfg.r, blocks = n / r, me = rt.rank(), ranks = rt.size();
  const bool data = rt.holds_data();
  const int start_ranks = first_ranks(cfg, ranks);  // the others join at the expansion
  Layout layout{start_ranks, start_ranks, 0};
  // My block columns in increasing order (the simulated back-end runs thousands of ranks: no loop
  // over all blocks per rank and iteration).
  std::vector<int> my_blocks;
  for (int j = me; j < blocks && me < start_ranks; j += start_ranks) my_blocks.push_back(j);

  // My block columns, each n x r column-major (lda = n), allocated only when data is held.
  std::vector<std::vector<double>> block(data ? blocks : 0);
  auto mine = [&](int j) { return layout.owner(j) == me; };
  for (int j : my_blocks) {
    if (!data) break;
    block[j].resize(static_cast<std::size_t>(n) * r);
    for (int c = 0; c < r; ++c) {
      for (int i = 0; i < n; ++i)
        block[j][static_cast<std::size_t>(c) * n + i] = lu_matrix_element(cfg.seed, i, j * r + c);
    }
  }
  // Panel k goes from its owner to every other active rank (rows k*r .. n-1 of block k, with its
  // pivots) along the --bcast pattern; ranks inside a tree or ring pass on what they receive.
  // The look-ahead panel of the pipelined variant is factored while panel k is still being applied,
  // so it has buffers of its own. Both are allocated and written at their largest size (the first
  // panel's) before the clock starts, as HPL allocates its work arrays, and each goes through MPI once
  // (Runtime::prepare_buffers): a buffer first touched inside the factorisation charged it with the
  // page faults of the first panel (3 MiB, 11-13 ms on this project's VM at n = 1536, r = 256, 12% of
  // the factorisation on one rank), and its first message with MPI's registration of its pages (5-6
  // ms against 0.5), costs of a run's start that no operation of the model holds. The basic variant
  // has no look-ahead but keeps the second buffer too: each buffer is sent from while MPI receives
  // into the other.
  std::vector<double> panel(data ? static_cast<std::size_t>(n) * r : 0, 0.0);
  std::vector<int> panel_pivots(data ? r : 0);
  std::vector<double> next_panel(data ? static_cast<std::size_t>(n) * r : 0, 0.0);
  std::vector<int> next_pivots(data ? r : 0);
  if (data && me < start_ranks)
    rt.prepare_buffers(start_ranks, {panel.data(), next_panel.data()}, sizeof(double) * panel.size());
  // Generating the matrix is not part of the factorisation (and the simulated back-end has no data):
  // the clock starts once every rank has its blocks.
  co_await rt.barrier();
  result.factorization_start_s = rt.now();
  auto at = [&](int j, int row) -> double* { return data ? block[j].data() + row : nullptr; };
  std::vector<int> pivots(data ? n : 0);
  // Flow control: the non-blocking panel sends still in flight, oldest first.
  std::vector<int> in_flight;
  auto wait_all = [&]() -> Task {
    for (int h : in_flight) co_await rt.wait(h);
    in_flight.clear();
  };
  // Sends a panel of `rows` rows and its pivots to the children of `peers` in turn; flow control:
  // without blocking, with at most `window` panel sends in flight. One coroutine for all children:
  // the sequential root has thousands of them per panel.
  auto send_panel = [&](const BcastPeers& peers, int rows, const double* buf, const int* piv) -> Task {
    const std::uint64_t bytes = sizeof(double) * static_cast<std::uint64_t>(rows) * r;
    for (int i = 0; i < peers.count(); ++i) {
      const int p = peers.child(i);
      if (cfg.variant == LuVariant::kFlowControl) {
        if (static_cast<int>(in_flight.size()) >= cfg.window) {
          co_await rt.wait(in_flight.front());
          in_flight.erase(in_flight.begin());
        }
        int handle = -1;
        co_await rt.isend(p, kTagPanel, buf, bytes, &handle);
        in_flight.push_back(handle);
      } else {
        co_await rt.send(p, kTagPanel, buf, bytes);
      }
      co_await rt.send(p, kTagPivots, piv, sizeof(int) * r);
    }
  };
  auto factor_and_send = [&](int k, std::vector<double>& out, std::vector<int>& out_pivots) -> Task {
    const int rows = n - k * r;
    if (!in_flight.empty()) co_await wait_all();  // `out` may still be on its way to the ranks of an earlier panel
    co_await rt.getrf(rows, r, at(k, k * r), n, data ? out_pivots.data() : nullptr);
    if (data) out.resize(static_cast<std::size_t>(rows) * r);
    co_await rt.pack(rows, r, at(k, k * r), n, data ? out.data() : nullptr);
    const BcastPeers peers = bcast_peers(cfg.bcast, layout, me, me);
    co_await send_panel(peers, rows, data ? out.data() : nullptr, data ? out_pivots.data() : nullptr);
  };
  auto receive_panel = [&](int k) -> Task {
    const int rows = n - k * r;
    if (!in_flight.empty()) co_await wait_all();  // `panel` may be my previous panel, still on its way to other ranks
    if (data) panel.resize(static_cast<std::size_t>(rows) * r);
    const BcastPeers peers = bcast_peers(cfg.bcast, layout, layout.owner(k), me);
    co_await rt.recv(peers.parent, kTagPanel, data ? panel.data() : nullptr, sizeof(double) * rows * r);
    co_await rt.recv(peers.parent, kTagPivots, data ? panel_pivots.data() : nullptr, sizeof(int) * r);
    if (peers.count() > 0) {
      co_await send_panel(peers, rows, data ? panel.data() : nullptr, data ? panel_pivots.data() : nullptr);
    }
  };
  // L = [L11; L21], panel k as this rank holds it: in its block if it is the owner, else received.
  auto panel_l = [&](int k) -> const double* {
    return data ? (layout.owner(k) == me ? at(k, k * r) : panel.data()) : nullptr;
  };
  auto panel_ld = [&](int k) { return layout.owner(k) == me ? n : n - k * r; };
  // Row flips of my block j for panel k, and for a block to the right the triangular solve
  // T12 = L11^-1 A12 (DPS paper section 5, step 2).
  auto solve = [&](int k, int j) -> Task {
    // The panel's pivots are relative to its first row k*r: flip rows of the block from there.
    co_await rt.laswp(r, at(j, k * r), n, 1, r, data ? panel_pivots.data() : nullptr, n - k * r);
    if (j > k) co_await rt.trsm(r, r, panel_l(k), panel_ld(k), at(j, k * r), n);
  };
  // The trailing update A22 -= L21 · T12 of columns [c0, c0 + width) of my block j (step 3); one
  // operation, awaited by the caller, so no coroutine of its own.
  auto multiply = [&](int k, int j, int c0, int width) {
    const int rows = n - k * r;
    const std::size_t col = static_cast<std::size_t>(c0) * n;
    return rt.gemm(rows - r, width, r, data ? panel_l(k) + r : nullptr, panel_ld(k),
                   data ? at(j, k * r) + col : nullptr, n, data ? at(j, k * r + r) + col : nullptr, n);
  };
  // Applies panel k to my block j: row flips, then for blocks to the right the solve and the update.
  auto update = [&](int k, int j) -> Task {
    co_await solve(k, j);
    if (j > k && n - k * r > r) co_await multiply(k, j, 0, r);
  };

  // PM, the parallel sub-block multiplications (DPS paper section 6, Figure 7; docs/apps.md): the
  // update of a block j to the right is split into S column shares of r/S columns. Share 0 stays with
  // the owner; share t goes to the owner's t-th successor among the active ranks (its "processing
  // node"), which receives the share of T12, multiplies it with L21 (it holds the panel already: the
  // broadcast brought it) and returns the product, which the owner subtracts. In an iteration with a
  // look-ahead, the rank that factors the next panel takes no part (its blocks are updated whole and
  // the shares that would go to it stay with their owners): its blocking panel sends wait for ranks
  // that would otherwise wait for its products.
  const int shares = cfg.parallel_multiply, share_cols = r / shares;
  std::vector<int> pm_in_flight;                // share and product sends, waited one iteration later
  std::vector<std::vector<double>> pm_buffers;  // their buffers, alive until then
  auto pm_wait_all = [&]() -> Task {
    for (int h : pm_in_flight) co_await rt.wait(h);
    pm_in_flight.clear();
    pm_buffers.clear();
  };
  auto helper = [&](int owner, int t, int ahead) {
    if (t == 0 || owner == ahead) return owner;
    const int h = layout.shifted(owner, t);
    return h == ahead ? owner : h;
  };
  auto split = [&](int k, int j, int ahead) {  // is block j's update in iteration k shared out?
    if (shares == 1 || j <= k || n - k * r <= r) return false;
    for (int t = 1; t < shares; ++t) {
      if (helper(layout.owner(j), t, ahead) != layout.owner(j)) return true;
    }
    return false;
  };
  // The blocks of the ranks whose shares I may compute: predecessor_blocks[t] holds those of my t-th
  // predecessor among the active ranks (t = 1 .. S-1). Set again when ranks leave.
  std::vector<std::vector<int>> predecessor_blocks;
  auto find_predecessors = [&] {
    predecessor_blocks.assign(shares, {});
    if (shares == 1 || !layout.is_active(me)) return;
    for (int j = 0; j < blocks; ++j) {
      for (int t = 1; t < shares; ++t) {
        if (layout.owner(j) == layout.shifted(me, -t)) predecessor_blocks[t].push_back(j);
      }
    }
  };
  find_predecessors();
  // Sends share t of my solved block j (an r x r/S slice of T12) to its helper.
  auto send_share = [&](int k, int j, int t, int to) -> Task {
    std::vector<double>& buf = pm_buffers.emplace_back(data ? static_cast<std::size_t>(r) * share_cols : 0);
    co_await rt.pack(r, share_cols, data ? at(j, k * r) + static_cast<std::size_t>(t) * share_cols * n : nullptr, n,
                     data ? buf.data() : nullptr);
    int handle = -1;
    co_await rt.isend(to, kTagShare, data ? buf.data() : nullptr,
                      sizeof(double) * static_cast<std::uint64_t>(r) * share_cols, &handle);
    pm_in_flight.push_back(handle);
  };
  // As a helper: receives each share I compute in iteration k, in the owners' order, and returns
  // -L21 · share (the gemm subtracts from zero).
  auto serve_shares = [&](int k, int ahead) -> Task {
    const int rows = n - k * r;
    std::vector<double> share(data ? static_cast<std::size_t>(r) * share_cols : 0);
    for (int t = 1; t < shares; ++t) {
      const int owner = layout.shifted(me, -t);
      if (helper(owner, t, ahead) != me) continue;
      for (int j : predecessor_blocks[t]) {
        if (!split(k, j, ahead)) continue;
        co_await rt.recv(owner, kTagShare, data ? share.data() : nullptr,
                         sizeof(double) * static_cast<std::uint64_t>(r) * share_cols);
        std::vector<double>& product =
            pm_buffers.emplace_back(data ? static_cast<std::size_t>(rows - r) * share_cols : 0, 0.0);
        co_await rt.gemm(rows - r, share_cols, r, data ? panel_l(k) + r : nullptr, panel_ld(k),
                         data ? share.data() : nullptr, r, data ? product.data() : nullptr, rows - r);
        int handle = -1;
        co_await rt.isend(owner, kTagProduct, data ? product.data() : nullptr,
                          sizeof(double) * static_cast<std::uint64_t>(rows - r) * share_cols, &handle);
        pm_in_flight.push_back(handle);
      }
    }
  };
  // As an owner: computes my own shares of my split blocks, then adds the helpers' products.
  auto collect_shares = [&](int k, int ahead) -> Task {
    const int rows = n - k * r;
    for (int j : my_blocks) {
      if (!split(k, j, ahead)) continue;
      for (int t = 0; t < shares; ++t) {
        if (helper(me, t, ahead) == me) co_await multiply(k, j, t * share_cols, share_cols);
      }
    }
    std::vector<double> product(data ? static_cast<std::size_t>(rows - r) * share_cols : 0);
    for (int j : my_blocks) {
      if (!split(k, j, ahead)) continue;
      for (int t = 1; t < shares; ++t) {
        const int from = helper(me, t, ahead);
        if (from == me) continue;
        co_await rt.recv(from, kTagProduct, data ? product.data() : nullptr,
                         sizeof(double) * static_cast<std::uint64_t>(rows - r) * share_cols);
        // The subtraction (the paper's operation (e)) is no runtime kernel: (rows - r) · r/S
        // additions, 1/r of the share's multiplication.
        for (int c = 0; data && c < share_cols; ++c) {
          double* dest = at(j, k * r + r) + static_cast<std::size_t>(t * share_cols + c) * n;
          const double* src = product.data() + static_cast<std::size_t>(c) * (rows - r);
          for (int i = 0; i < rows - r; ++i) dest[i] += src[i];
        }
      }
    }
  };

  bool lookahead_done = false;  // pipelined: panel k was factored and sent during iteration k-1
  for (int k = 0; k < blocks; ++k) {
    if (!layout.is_active(me)) {
      if (cfg.expand == 0 || k > cfg.expand_after_iteration) break;  // left, or never joins
      if (k < cfg.expand_after_iteration) continue;                  // idle until the expansion
      rt.set_iteration(k);
      co_await expand_layout(rt, cfg, layout, block, my_blocks);
      find_predecessors();
      if (cfg.variant == LuVariant::kBasic) co_await group_barrier(rt, layout);
      continue;
    }
    rt.set_iteration(k);
    if (mine(k)) {
      if (lookahead_done) {
        panel.swap(next_panel);
        panel_pivots.swap(next_pivots);
      } else {
        co_await factor_and_send(k, panel, panel_pivots);
      }
    } else {
      co_await receive_panel(k);
    }
    if (shares > 1) co_await pm_wait_all();  // the shares and products of iteration k-1 have arrived by now
    if (data) {
      for (int i = 0; i < r; ++i) pivots[k * r + i] = panel_pivots[i] + k * r;
    }
    // Pipelined: the owner of the next panel brings it up to date and sends it first.
    const int ahead =
        cfg.variant != LuVariant::kBasic && k + 1 < blocks && !layout_changes_after(cfg, k) ? layout.owner(k + 1) : -1;
    lookahead_done = ahead == me;
    if (lookahead_done) {
      co_await update(k, k + 1);
      co_await factor_and_send(k + 1, next_panel, next_pivots);
    }
    for (int j : my_blocks) {
      if (j == k || (lookahead_done && j == k + 1)) continue;
      if (!split(k, j, ahead)) {
        co_await update(k, j);
        continue;
      }
      co_await solve(k, j);
      for (int t = 1; t < shares; ++t) {
        if (int to = helper(me, t, ahead); to != me) co_await send_share(k, j, t, to);
      }
    }
    if (shares > 1) {
      co_await serve_shares(k, ahead);
      co_await collect_shares(k, ahead);
    }
    // Node removal: after iteration I the last `remove` ranks hand their blocks to the survivors.
    if (cfg.remove > 0 && k == cfg.remove_after_iteration) {
      // The layout before a removal deals the blocks round-robin over all active ranks (an expansion
      // comes before it, if at all); the leaving ranks' blocks go round-robin to the survivors.
      HETPERF_CHECK(layout.removed == 0 && layout.cycle == layout.active, "a removal after a removal");
      const Layout survivors{layout.active - cfg.remove, layout.active, cfg.remove};
      co_await wait_all();  // a leaving rank's panel must be delivered before it goes
      if (shares > 1) co_await pm_wait_all();
      for (int j = 0; j < blocks; ++j) {
        const int from = layout.owner(j), to = survivors.owner(j);
        if (to == from) continue;
        const std::uint64_t bytes = sizeof(double) * static_cast<std::uint64_t>(n) * r;
        if (from == me) {
          co_await rt.send(to, kTagHandOff, data ? block[j].data() : nullptr, bytes);
          if (data) {
            block[j].clear();
            block[j].shrink_to_fit();
          }
        } else if (to == me) {
          if (data) block[j].resize(static_cast<std::size_t>(n) * r);
          co_await rt.recv(from, kTagHandOff, data ? block[j].data() : nullptr, bytes);
        }
      }
      layout = survivors;
      my_blocks.clear();
      for (int j = 0; j < blocks; ++j) {
        if (mine(j)) my_blocks.push_back(j);
      }
      find_predecessors();
    }
    if (cfg.expand > 0 && k == cfg.expand_after_iteration) {
      co_await wait_all();  // my panel sends must be delivered before its blocks move
      if (shares > 1) co_await pm_wait_all();
      co_await expand_layout(rt, cfg, layout, block, my_blocks);
      find_predecessors();
    }
    if (cfg.variant == LuVariant::kBasic && layout.is_active(me)) co_await group_barrier(rt, layout);
  }
  if (!in_flight.empty()) co_await wait_all();
  if (shares > 1) co_await pm_wait_all();
  rt.set_iteration(-1);
  result.factorization_end_s = rt.now();

  // Gather the factors on rank 0 (outside the timed factorisation).
  const std::uint64_t block_bytes = sizeof(double) * static_cast<std::uint64_t>(n) * r;
  if (me == 0) {
    if (data) result.factors.assign(static_cast<std::size_t>(n) * n, 0.0);
    for (int j = 0; j < blocks; ++j) {
      double* dest = data ? result.factors.data() + static_cast<std::size_t>(j) * r * n : nullptr;
      const int owner = layout.owner(j);
      if (owner == 0) {
        if (data) std::copy(block[j].begin(), block[j].end(), dest);
      } else {
        co_await rt.recv(owner, kTagGather, dest, block_bytes);
      }
    }
    result.pivots = pivots;
  } else if (layout.is_active(me)) {
    for (int j : my_blocks) co_await rt.send(0, kTagGather, data ? block[j].data() : nullptr, block_bytes);
  }
}

}  // namespace hetperf::apps
