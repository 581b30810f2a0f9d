// Operation time models calibrated in the applications' own regime (issue 14): fitted by `hetperf
// calibrate --trace` on real traces of hetperf-lu and hetperf-integrate (hetperf.trace/1), per computer,
// per operation and per number of the application's ranks computing at once on that computer, with
// their residual distribution and the machine's run-to-run state, so that the simulated back-end can
// predict distributions rather than points (the seeds' partial direct execution, seed 003 sections 3-4,
// with UniMPP's view of times as distributions, seed 001 section 2).
//
//   t(call) = Σ_j β_j · x_j(call)                       the operation's low-order form (features below)
//   measured time of call i in run r = t(call_i) · f_r,op · ε_i
// f_r,op is run r's state factor for that operation (the median of measured/t over the run's calls of
// the operation: a slow spell of a shared machine slows memory-bound laswp and getrf more than gemm),
// and ε_i the per-call residual, whose quantiles are kept per band of t (heteroscedastic: short calls
// spread more). A sampled prediction draws one calibration run's factors per run and computer, and one
// ε per call.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/distribution.hpp"

namespace hetperf {

class JsonNode;

// The dimensions of one operation call, as the trace records them.
struct OperationCall {
  std::string op;        // "gemm", "trsm", "getrf", "laswp", "integrate"
  double m = 0, n = 0, k = 0;
  double steps = 0;      // integrate
};

// The features x_j of an operation's form, by name, and their values for a call:
//   gemm  (c m×n −= a m×k · b k×n):         mnk, mn, mk, nk, 1
//   trsm  (m×m unit lower triangle, n rhs): mmn, mn, mm, 1
//   getrf (m×n panel):                      mnn, nnn, mn, nn, 1
//   laswp (k interchanges over n columns    mn, nk, n, 1
//          whose pivots reach m rows):
//   integrate (steps trapezium steps):      steps (no constant: the loop has no set-up worth a
//          term, and with the few lengths calibration runs use, a constant only fits their noise)
// Unknown operation: empty.
const std::vector<std::string>& operation_features(const std::string& op);
std::vector<double> feature_values(const OperationCall& call);

// The distribution of ε for calls whose modelled time is at most `up_to_s` (the last band: any), as
// equally likely values: the order statistics at probabilities (i + ½)/q, i = 0 .. q−1. Drawing one
// of them uniformly keeps the mean of a heavy tail (a call preempted by another process on a shared
// machine takes tens of times its time), which interpolating a few quantiles would inflate.
struct ResidualBand {
  double up_to_s = 0;
  std::vector<double> values;  // non-decreasing, positive
};

struct OperationModel {
  std::string op;
  int ranks = 1;                        // application ranks computing at once on the computer
  std::vector<std::string> features;    // = operation_features(op)
  std::vector<double> coefficients_s;   // one per feature
  // The calibrated range: smallest and largest value of each feature over the calls fitted.
  std::vector<double> feature_min, feature_max;
  std::uint64_t calls = 0;
  double median_abs_residual = 0;       // median |measured / (t · f) − 1| over the calls
  std::vector<ResidualBand> residuals;  // by increasing up_to_s; may be empty (no noise)
  std::vector<std::string> traces;      // files it was fitted on

  // t(call), never below zero.
  double time_s(const OperationCall& call) const;
  // Whether every feature of the call is within [min/2, 2·max] of the calibrated range (a call far
  // outside extrapolates the form).
  bool in_range(const OperationCall& call) const;
  // ε for a call of modelled time t and a uniform draw u in [0, 1): the band's value of index ⌊u q⌋.
  double residual(double t, double u) const;
};

// Messages between ranks of one computer as the application issues them, for `ranks` ranks mapped
// there: t = latency_s + bytes · seconds_per_byte from the moment both sides are ready (the send
// started and the receive posted) to the receive's end, fitted on the medians per message size. What
// a run's messages took beyond that line is its state (RunState::message_delays_s): on a shared
// machine a rank taken off its core for a scheduler slice delays its partner by milliseconds.
struct MessageModel {
  int ranks = 2;
  double latency_s = 0;
  double seconds_per_byte = 0;
  std::uint64_t min_bytes = 0, max_bytes = 0;  // the calibrated range
  std::uint64_t messages = 0;
  std::vector<std::string> traces;

  double time_s(std::uint64_t bytes) const { return latency_s + static_cast<double>(bytes) * seconds_per_byte; }
};

// One calibration run's state: its factor per operation (1 where the run had no such call), and the
// delays of its local messages beyond their model (equally likely values; empty: none).
struct RunState {
  std::string trace;
  std::map<std::string, double> factor;
  std::vector<double> message_delays_s = {};
};

// A whole calibration run against its prediction: the run's measured time over the point prediction
// of its configuration on the calibrated profile. Everything the operation and message models miss
// in that run (the waits of ranks taken off their cores, the machine's spell) is in it; the spread of
// these ratios over repeated calibration runs is the run-level state the "variability as data"
// asks for, measured on whole runs in the application's regime.
struct RunScale {
  std::string app;    // "lu" or "integrate"
  int ranks = 1;      // ranks of the run on the computer
  double ratio = 1;   // measured / predicted, > 0
  std::string trace;
  double size = 0;    // the run's problem size: LU's n, integration's steps; 0: not recorded
  // The run's regime within its app: LU's variant and block size ("basic/r128"; profiles before
  // block sizes were recorded hold the variant alone, "basic"); an integration's message and disk
  // sizes ("m<bytes>-d<bytes>"); apps/sim/app_jobs.cpp run_key. Empty: none recorded. The part before
  // a '/' is the regime's family.
  std::string variant = {};
  // The point prediction the ratio is over, seconds (the measured time is ratio × predicted_s); 0:
  // not recorded (older profiles). A regime's time over its reference regime (AppModels::scales) needs it.
  double predicted_s = 0;
};

// A regime whose cost over a reference regime of its app is a time of its own rather than a factor:
// an integration's load (64 KiB messages above the eager limit, 1 MiB written and synced by every
// worker) costs each process the same whatever its steps. `point_s` is the job's point prediction.
struct ExcessOver {
  std::string reference;  // the regime without the load (RunScale::variant), as "m32-d0"
  double point_s = 0;
};

// The whole-run ratios of calibration runs of one app (RunScale) that a run of `app` with `ranks`
// ranks, problem size `size` and regime `variant` draws from (AppModels::scales has the rules).
std::vector<double> run_scale_draws(const std::vector<RunScale>& runs, const std::string& app, int ranks, double size,
                                    const std::string& variant, const ExcessOver& excess);

// The application-regime models of one computer.
struct AppModels {
  std::vector<OperationModel> operations;
  std::vector<MessageModel> messages;  // by rank count; may be empty
  std::vector<RunState> runs;  // the calibration runs' states, drawn from when sampling
  std::vector<RunScale> run_scales = {};  // whole calibration runs against their predictions; may be empty

  bool empty() const { return operations.empty(); }
  // The model of `op` for `ranks` ranks computing at once: the one of that rank count, else of the
  // nearest one below it, else the smallest above; nullptr when `op` has none.
  const OperationModel* find(const std::string& op, int ranks) const;
  // The ratios a sampled run of `app` with `ranks` ranks, problem size `size` (0: unknown) and regime
  // `variant` (RunScale::variant) draws from: centred on the level of its rank count and size, spread
  // as every calibration run it uses around its own level; sorted; empty when there are none. It uses
  // the calibration runs of its regime's family (RunScale::variant) when there are any, else all runs
  // of the app; a regime with runs of its own within a larger family has its level multiplied by its
  // correction per rank count (the shorth's median of its runs over the family's level at their
  // size). A rank count with fewer than 3 runs at one of its sizes has one level over all its sizes. A level is the
  // shorth's median of the runs of one rank count and size; between two calibrated sizes of a rank
  // count it follows the line through theirs in 1/size, between two calibrated rank counts the
  // line in log(ranks); beyond either range, the nearest calibrated one's.
  // With `excess` (and runs of both regimes, the variant's with their predicted_s), the level is the
  // reference regime's level plus the variant's time per rank over it, divided by the job's point
  // prediction: ratio level = reference level(ranks, size) + ranks · e(ranks) / point_s, where e of a
  // calibrated rank count is the shorth's median, over the variant's runs of that count (any size), of
  // predicted_s · (ratio − reference level at the run's size) / ranks, and between counts the line in
  // log(ranks). The spread stays the variant's runs' around their own levels. A variant without runs
  // of its own then draws from the reference regime's runs rather than every run of the app.
  std::vector<double> scales(const std::string& app, int ranks, double size = 0, const std::string& variant = {},
                             const ExcessOver& excess = {}) const;
  // The message model for `ranks` ranks, chosen as `find` chooses; nullptr when there is none.
  const MessageModel* find_messages(int ranks) const;
};

nlohmann::json to_json(const AppModels& m);
// Validates every field (InputError naming the file and JSON path).
AppModels app_models_from_json(const JsonNode& node);

// A run's placement pattern: the list of the computers its ranks ran on, rank by rank, cut to its
// shortest repeating unit ("a,b,a,b" -> "a,b"; "a,a,b,b" and "a,b,b,a" stay). Runs with one pattern
// share the way their ranks meet across the computers, whatever their number.
std::vector<std::string> placement_pattern(const std::vector<std::string>& rank_hosts);

// Whole calibration runs whose ranks spanned several computers, against their predictions
// (RunScale, ranks = all the run's ranks), grouped by placement pattern. What the per-computer
// models miss across computers is in them: on the duo testbed (one core capped at 50% by a CPU
// quota), a receive on the capped computer waits for its next quota window, and the TCP stack
// streams the buffered rest of a message on that quota; LU's four ranks on two one-core computers
// were predicted 6-10% short by their operation and message models alone. A run with the same pattern
// draws its ratios as a run on one computer does (AppModels::scales).
struct PlacementRuns {
  std::vector<std::string> pattern;  // placement_pattern, at least two computers
  std::vector<RunScale> run_scales;

  std::vector<double> scales(const std::string& app, int ranks, double size = 0, const std::string& variant = {},
                             const ExcessOver& excess = {}) const {
    return run_scale_draws(run_scales, app, ranks, size, variant, excess);
  }
};

nlohmann::json to_json(const std::vector<RunScale>& runs);
std::vector<RunScale> run_scales_from_json(const JsonNode& array);

// Draws the noise of one sampled run: a calibration run's state per computer, then ε per call. The
// stream is a fixed function of (seed, sample), so that samples are reproducible in any order and on
// any number of threads.
class OperationNoise {
 public:
  OperationNoise(std::uint64_t seed, std::uint64_t sample);
  // The state factor of `op` in the run drawn for the computer whose models are `models`
  // (`computer` is its index: each computer draws its run once per sample).
  double run_factor(std::size_t computer, const AppModels& models, const std::string& op);
  // A delay drawn from the local-message delays of the run drawn for the computer (0 when it has none).
  double message_delay(std::size_t computer, const AppModels& models);
  // A uniform draw in [0, 1).
  double uniform();

 private:
  Rng rng_;
  std::map<std::size_t, std::size_t> run_of_computer_;
  std::size_t run_of(std::size_t computer, const AppModels& models);
};

}  // namespace hetperf
