// Block LU factorisation with partial pivoting of an n x n matrix distributed over the ranks in column
// blocks of width r (block j on rank j mod P), after the DPS paper's test application (DPS paper
// sections 5-6): per iteration k the owner of block k factors the panel (getrf) and broadcasts it with
// its pivots to every other rank; each rank flips rows (laswp), solves the triangular system (trsm) and
// updates the trailing part (gemm) of its blocks to the right, and flips the rows of its blocks to the
// left. With parallel_multiply S > 1 (the paper's PM) each trailing update is split into S column
// shares computed on S ranks (docs/apps.md says exactly how). Written once against Runtime, so the
// real and the simulated back-end run the same operations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/apps/runtime.hpp"
#include "hetperf/apps/task.hpp"
#include "hetperf/model/app_jobs_spec.hpp"

namespace hetperf::apps {

// The variants, declared with the workload's LU options (hetperf/model/app_jobs_spec.hpp):
//  kBasic:       a barrier closes every iteration: no overlap between iterations
//  kPipelined:   look-ahead: the owner of the next panel updates and factors it before its other blocks
//  kFlowControl: pipelined, and the panel owner streams its panel to the others with non-blocking
//                sends, at most `window` outstanding: the DPS flow control (DPS paper section 6) bounds
//                the requests in flight so the owner goes on with its updates instead of waiting for
//                each receiver in turn.
using hetperf::LuVariant;
// The panel broadcast (LuBcast): kSequential (the owner sends to every other rank in turn), kTree
// (binomial tree), kRing (increasing ring); all from point-to-point sends, the flow control window
// applying to every rank's forwarding sends.
using hetperf::LuBcast;
using hetperf::to_string;  // to_string(LuVariant): "basic", ...; to_string(LuBcast): "sequential", ...

struct LuConfig {
  int n = 1024;  // matrix order
  int r = 128;   // block width; must divide n
  LuVariant variant = LuVariant::kBasic;
  int window = 2;                        // flow control: outstanding panel sends (>= 1)
  int remove = 0;                        // ranks that leave (the highest-numbered ones) ...
  int remove_after_iteration = -1;       // ... after this iteration (-1: never)
  int expand = 0;                        // ranks that start idle (the highest-numbered) and join ...
  int expand_after_iteration = -1;       // ... after this iteration (-1: never), the block columns then
                                         // redistributed block-cyclically over all ranks (ReSHAPE paper 3.2)
  std::uint64_t seed = 1;                // of the random matrix
  LuBcast bcast = LuBcast::kSequential;  // how the panel reaches the other ranks
  int parallel_multiply = 1;             // PM: S column shares per trailing update, on S ranks; 1: no split.
                                         // Divides r, at most the ranks that stay.

  // Empty when valid for `ranks` ranks, else the message naming the option and the rule.
  std::string validate(int ranks) const;
};

LuVariant parse_lu_variant(const std::string& name);  // InputError for an unknown name
LuBcast parse_lu_bcast(const std::string& name);      // InputError for an unknown name

// The element (i, j) of the random test matrix: uniform in [-0.5, 0.5), from the seed alone, so any
// rank can regenerate any part of it.
double lu_matrix_element(std::uint64_t seed, int i, int j);

// What one rank ends with. On rank 0 after the run: `factors` holds the whole n x n result (L below
// the diagonal, unit diagonal implied, U on and above) column-major, and `pivots` the n global row
// interchanges (1-based), when the back-end holds data.
struct LuResult {
  std::vector<double> factors;
  std::vector<int> pivots;
  // The factorisation's clock: it starts when every rank has generated its blocks of the matrix and
  // all have met in a barrier, and ends when this rank finished its part of the factorisation.
  double factorization_start_s = 0;
  double factorization_end_s = 0;
};

// Ranks taking part in iteration k of a run on `ranks` ranks (fewer before an expansion and after a
// node removal).
int lu_ranks_in_iteration(const LuConfig& config, int ranks, int k);

// One redistribution of the block columns at a resize point, from a trace's block hand-off messages
// (tag kLuHandOffTag): its time runs from the moment the last rank entered it (the earliest hand-off
// of each rank; ranks that joined wait in theirs from the start, so they do not count) to the end of
// the last hand-off; the bytes moved and the ranks that sent or received.
constexpr int kLuHandOffTag = 3;
struct LuRedistribution {
  int after_iteration = 0;
  int from_ranks = 0, to_ranks = 0;  // ranks in the computation before and after it
  double start_s = 0, end_s = 0;
  std::uint64_t bytes = 0;
  int ranks = 0;
  double time_s() const { return end_s - start_s; }
};
// `config` and `ranks` (the run's) give each one's from_ranks and to_ranks.
std::vector<LuRedistribution> lu_redistributions(const std::vector<TraceEvent>& events, const LuConfig& config,
                                                 int ranks);
// As the traces' summaries write them: after_iteration, from_ranks, to_ranks, start_s and end_s (from
// `origin`), time_s, bytes, ranks.
nlohmann::json redistributions_json(const std::vector<LuRedistribution>& rs, double origin);

// The application: every rank runs it with the same config.
Task lu_rank(Runtime& rt, const LuConfig& config, LuResult& result);

}  // namespace hetperf::apps
