// Block LU factorisation, written once against Runtime (see lu.hpp).
#include "hetperf/apps/lu.hpp"

#include <algorithm>
#include <cstring>

#include "hetperf/model/error.hpp"

namespace hetperf::apps {
namespace {

enum Tag : int { kTagPanel = 1, kTagPivots = 2, kTagHandOff = kLuHandOffTag, kTagGather = 4, kTagSync = 5 };

// Owner of each block column, and which ranks are still in the computation.
struct Layout {
  std::vector<int> owner;
  std::vector<int> active;
  std::vector<char> member;  // member[rank]: rank is in `active`
  bool is_active(int rank) const { return member[rank] != 0; }
};

// A barrier among the active ranks only, by messages (ranks that left take no part): everyone
// reports to the first active rank, which releases them.
Task group_barrier(Runtime& rt, const Layout& layout) {
  int root = layout.active.front();
  if (rt.rank() == root) {
    for (int p : layout.active) {
      if (p != root) co_await rt.recv(p, kTagSync, nullptr, 0);
    }
    for (int p : layout.active) {
      if (p != root) co_await rt.send(p, kTagSync, nullptr, 0);
    }
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

// Expansion (seed 002 section 3.2): every rank becomes active and the block columns are laid out
// block-cyclically over all of them (block j on rank j mod P); each moved block goes from its old
// owner to its new one, in increasing j on every rank, so the sends and receives pair up in order.
Task expand_layout(Runtime& rt, const LuConfig& cfg, Layout& layout, std::vector<std::vector<double>>& block,
                   std::vector<int>& my_blocks) {
  const int ranks = rt.size(), me = rt.rank(), blocks = cfg.n / cfg.r;
  const bool data = rt.holds_data();
  const std::uint64_t bytes = sizeof(double) * static_cast<std::uint64_t>(cfg.n) * cfg.r;
  for (int j = 0; j < blocks; ++j) {
    const int to = j % ranks, from = layout.owner[j];
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
    layout.owner[j] = to;
  }
  layout.active.clear();
  for (int p = 0; p < ranks; ++p) layout.active.push_back(p);
  layout.member.assign(ranks, 1);
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
  // The rules between options are the workload reader's, named by the program's flags here.
  auto v = lu_violation(LuSpec{n, r, variant, window, remove, remove_after_iteration, expand, expand_after_iteration}, ranks);
  if (!v) return {};
  if (v->field == "r") return "--r " + std::to_string(r) + ": expected " + v->expected;
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

double lu_matrix_element(std::uint64_t seed, int i, int j) {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (static_cast<std::uint64_t>(i) << 32 | static_cast<std::uint32_t>(j));
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
  Layout layout;
  const int start_ranks = first_ranks(cfg, ranks);  // the others join at the expansion
  for (int j = 0; j < blocks; ++j) layout.owner.push_back(j % start_ranks);
  for (int p = 0; p < start_ranks; ++p) layout.active.push_back(p);
  layout.member.assign(ranks, 0);
  for (int p : layout.active) layout.member[p] = 1;
  // My block columns in increasing order (the simulated back-end runs thousands of ranks: no loop
  // over all blocks per rank and iteration).
  std::vector<int> my_blocks;
  for (int j = me; j < blocks && me < start_ranks; j += start_ranks) my_blocks.push_back(j);

  // My block columns, each n x r column-major (lda = n), allocated only when data is held.
  std::vector<std::vector<double>> block(data ? blocks : 0);
  auto mine = [&](int j) { return layout.owner[j] == me; };
  for (int j : my_blocks) {
    if (!data) break;
    block[j].resize(static_cast<std::size_t>(n) * r);
    for (int c = 0; c < r; ++c) {
      for (int i = 0; i < n; ++i) block[j][static_cast<std::size_t>(c) * n + i] = lu_matrix_element(cfg.seed, i, j * r + c);
    }
  }
  // Generating the matrix is not part of the factorisation (and the simulated back-end has no data):
  // the clock starts once every rank has its blocks.
  co_await rt.barrier();
  result.factorization_start_s = rt.now();
  auto at = [&](int j, int row) -> double* { return data ? block[j].data() + row : nullptr; };
  std::vector<int> pivots(data ? n : 0);
  std::vector<double> panel;
  std::vector<int> panel_pivots(r);

  // Factors panel k on its owner and sends it (rows k*r .. n-1 of block k, with its pivots) to every
  // other active rank.
  // The look-ahead panel of the pipelined variant is factored while panel k is still being applied,
  // so it has buffers of its own.
  std::vector<double> next_panel;
  std::vector<int> next_pivots(r);
  // Flow control: the non-blocking panel sends still in flight, oldest first.
  std::vector<int> in_flight;
  auto wait_all = [&]() -> Task {
    for (int h : in_flight) co_await rt.wait(h);
    in_flight.clear();
  };
  auto factor_and_send = [&](int k, std::vector<double>& out, std::vector<int>& out_pivots) -> Task {
    const int rows = n - k * r;
    co_await wait_all();  // `out` may still be on its way to the ranks of an earlier panel
    co_await rt.getrf(rows, r, at(k, k * r), n, data ? out_pivots.data() : nullptr);
    if (data) {
      out.resize(static_cast<std::size_t>(rows) * r);
      for (int c = 0; c < r; ++c) {
        std::memcpy(out.data() + static_cast<std::size_t>(c) * rows, at(k, k * r) + static_cast<std::size_t>(c) * n,
                    sizeof(double) * rows);
      }
    }
    for (int p : layout.active) {
      if (p == me) continue;
      const std::uint64_t bytes = sizeof(double) * static_cast<std::uint64_t>(rows) * r;
      if (cfg.variant == LuVariant::kFlowControl) {
        if (static_cast<int>(in_flight.size()) >= cfg.window) {
          co_await rt.wait(in_flight.front());
          in_flight.erase(in_flight.begin());
        }
        int handle = -1;
        co_await rt.isend(p, kTagPanel, data ? out.data() : nullptr, bytes, &handle);
        in_flight.push_back(handle);
      } else {
        co_await rt.send(p, kTagPanel, data ? out.data() : nullptr, bytes);
      }
      co_await rt.send(p, kTagPivots, data ? out_pivots.data() : nullptr, sizeof(int) * r);
    }
  };
  auto receive_panel = [&](int k) -> Task {
    const int rows = n - k * r;
    co_await wait_all();  // `panel` may be my previous panel, still on its way to other ranks
    if (data) panel.resize(static_cast<std::size_t>(rows) * r);
    co_await rt.recv(layout.owner[k], kTagPanel, data ? panel.data() : nullptr, sizeof(double) * rows * r);
    co_await rt.recv(layout.owner[k], kTagPivots, data ? panel_pivots.data() : nullptr, sizeof(int) * r);
  };
  // Applies panel k to my block j: row flips, then for blocks to the right the triangular solve and
  // the trailing update (seed 003 section 5, steps 2 and 3).
  auto update = [&](int k, int j) -> Task {
    const int rows = n - k * r;
    // The panel's pivots are relative to its first row k*r: flip rows of the block from there.
    co_await rt.laswp(r, at(j, k * r), n, 1, r, data ? panel_pivots.data() : nullptr, rows);
    if (j < k) co_return;
    const double* l = data ? (layout.owner[k] == me ? at(k, k * r) : panel.data()) : nullptr;
    const int ldl = layout.owner[k] == me ? n : rows;
    co_await rt.trsm(r, r, l, ldl, at(j, k * r), n);
    if (rows > r) co_await rt.gemm(rows - r, r, r, data ? l + r : nullptr, ldl, at(j, k * r), n, at(j, k * r + r), n);
  };

  bool lookahead_done = false;  // pipelined: panel k was factored and sent during iteration k-1
  for (int k = 0; k < blocks; ++k) {
    if (!layout.is_active(me)) {
      if (cfg.expand == 0 || k > cfg.expand_after_iteration) break;  // left, or never joins
      if (k < cfg.expand_after_iteration) continue;                   // idle until the expansion
      rt.set_iteration(k);
      co_await expand_layout(rt, cfg, layout, block, my_blocks);
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
    if (data) {
      for (int i = 0; i < r; ++i) pivots[k * r + i] = panel_pivots[i] + k * r;
    }
    lookahead_done = false;
    // Pipelined: the owner of the next panel brings it up to date and sends it first.
    if (cfg.variant != LuVariant::kBasic && k + 1 < blocks && mine(k + 1) && !layout_changes_after(cfg, k)) {
      co_await update(k, k + 1);
      co_await factor_and_send(k + 1, next_panel, next_pivots);
      lookahead_done = true;
    }
    for (int j : my_blocks) {
      if (j == k || (lookahead_done && j == k + 1)) continue;
      co_await update(k, j);
    }
    // Node removal: after iteration I the last `remove` ranks hand their blocks to the survivors.
    if (cfg.remove > 0 && k == cfg.remove_after_iteration) {
      std::vector<int> survivors(layout.active.begin(), layout.active.end() - cfg.remove);
      std::vector<int> new_owner = layout.owner;
      int next = 0;
      for (int j = 0; j < blocks; ++j) {
        if (std::find(survivors.begin(), survivors.end(), layout.owner[j]) == survivors.end()) {
          new_owner[j] = survivors[next++ % survivors.size()];
        }
      }
      co_await wait_all();  // a leaving rank's panel must be delivered before it goes
      for (int j = 0; j < blocks; ++j) {
        if (new_owner[j] == layout.owner[j]) continue;
        const std::uint64_t bytes = sizeof(double) * static_cast<std::uint64_t>(n) * r;
        if (layout.owner[j] == me) {
          co_await rt.send(new_owner[j], kTagHandOff, data ? block[j].data() : nullptr, bytes);
          if (data) {
            block[j].clear();
            block[j].shrink_to_fit();
          }
        } else if (new_owner[j] == me) {
          if (data) block[j].resize(static_cast<std::size_t>(n) * r);
          co_await rt.recv(layout.owner[j], kTagHandOff, data ? block[j].data() : nullptr, bytes);
        }
      }
      layout.owner = new_owner;
      layout.active = survivors;
      layout.member.assign(ranks, 0);
      for (int p : survivors) layout.member[p] = 1;
      my_blocks.clear();
      for (int j = 0; j < blocks; ++j) {
        if (mine(j)) my_blocks.push_back(j);
      }
    }
    if (cfg.expand > 0 && k == cfg.expand_after_iteration) {
      co_await wait_all();  // my panel sends must be delivered before its blocks move
      co_await expand_layout(rt, cfg, layout, block, my_blocks);
    }
    if (cfg.variant == LuVariant::kBasic && layout.is_active(me)) co_await group_barrier(rt, layout);
  }
  co_await wait_all();
  rt.set_iteration(-1);
  result.factorization_end_s = rt.now();

  // Gather the factors on rank 0 (outside the timed factorisation).
  const std::uint64_t block_bytes = sizeof(double) * static_cast<std::uint64_t>(n) * r;
  if (me == 0) {
    if (data) result.factors.assign(static_cast<std::size_t>(n) * n, 0.0);
    for (int j = 0; j < blocks; ++j) {
      double* dest = data ? result.factors.data() + static_cast<std::size_t>(j) * r * n : nullptr;
      if (layout.owner[j] == 0) {
        if (data) std::copy(block[j].begin(), block[j].end(), dest);
      } else {
        co_await rt.recv(layout.owner[j], kTagGather, dest, block_bytes);
      }
    }
    result.pivots = pivots;
  } else if (layout.is_active(me)) {
    for (int j : my_blocks) co_await rt.send(0, kTagGather, data ? block[j].data() : nullptr, block_bytes);
  }
}

}  // namespace hetperf::apps
