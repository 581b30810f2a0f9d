// Operation time models calibrated in the applications' own regime: fitted by `hetperf calibrate
// --trace` on real traces of hetperf-lu and hetperf-integrate (hetperf.trace/1), per computer and per
// operation, with their residual distribution and the machine's run-to-run state, so that the simulated
// back-end predicts distributions rather than points (the partial direct execution of Schaeli, Gerlach
// and Hersch, DPS, sections 3-4, with UniMPP's view of times as distributions, de Mello and Senger,
// section 2). Every parameter belongs to a computer, never to an application configuration (a rank
// count, a size, a variant): the prediction of a configuration never calibrated uses the same models
// as one that was.
//
//   t(call) = Σ_j β_j · x_j(call)                 the operation's time alone on the computer
//   measured time of call i in run r = t(call_i) / s(k_i) · f_r,op · ε_i
// s(k) is the computer's speed of memory-bound kernels while k of its ranks compute at once, relative
// to one alone (shared caches and memory bandwidth: AppModels::concurrency_speed); the simulator's
// processor applies it as the number of computing ranks changes. f_r,op is run r's state factor for that
// operation, ε_i the per-call residual, whose values are kept per band of t (short calls spread more).
// A sampled prediction draws one calibration run's factors per run and computer, and one ε per call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/distribution.hpp"

namespace hetperf {

class JsonNode;

// The dimensions of one operation call, as the trace records them.
struct OperationCall {
  std::string op;  // "gemm", "trsm", "getrf", "laswp", "pack", "integrate"
  double m = 0, n = 0, k = 0;
  double steps = 0;  // integrate
};

// The features x_j of an operation's form, by name, and their values for a call:
//   gemm  (c m×n −= a m×k · b k×n):         mnk, mn, mk, nk, 1
//   trsm  (m×m unit lower triangle, n rhs): mmn, mn, mm, 1
//   getrf (m×n panel):                      mnn, nnn, mn, nn, 1
//   laswp (k interchanges over n columns    mn, nk, n, 1
//          whose pivots reach m rows):
//   pack  (an m×n block copied into a       mn, 1
//          contiguous buffer):
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
  std::vector<std::string> features;   // = operation_features(op)
  std::vector<double> coefficients_s;  // one per feature
  // The calibrated range: smallest and largest value of each feature over the calls fitted.
  std::vector<double> feature_min, feature_max;
  std::uint64_t calls = 0;
  double median_abs_residual = 0;       // median |measured / (t · f) − 1| over the calls
  std::vector<ResidualBand> residuals;  // by increasing up_to_s; may be empty (no noise)
  std::vector<std::string> traces;      // files it was fitted on

  // t(call) alone on the computer, never below zero.
  double time_s(const OperationCall& call) const;
  // Whether every feature of the call is within [min/2, 2·max] of the calibrated range (a call far
  // outside extrapolates the form).
  bool in_range(const OperationCall& call) const;
  // ε for a call of modelled time t and a uniform draw u in [0, 1): the band's value of index ⌊u q⌋.
  double residual(double t, double u) const;
};

// Messages between ranks of one computer as the application issues them: t = latency_s + bytes ·
// seconds_per_byte from the moment both sides are ready (the send started and the receive posted) to
// the receive's end, fitted on the medians per message size of runs with at most as many ranks as
// cores there (with more, the times hold the waits to be scheduled in, which the hand-off models,
// Computer::oversubscribed_handoff_s). What a run's messages took beyond that line is its state
// (RunState::message_delays_s): on a shared machine a rank taken off its core for a scheduler slice
// delays its partner by milliseconds.
struct MessageModel {
  double latency_s = 0;
  double seconds_per_byte = 0;
  std::uint64_t min_bytes = 0, max_bytes = 0;  // the calibrated range
  std::uint64_t messages = 0;
  std::vector<std::string> traces;
  // "source" (optional): where a line not fitted on traces comes from (a probe's measurement file);
  // empty: the traces above.
  std::string source = {};

  double time_s(std::uint64_t bytes) const { return latency_s + static_cast<double>(bytes) * seconds_per_byte; }
};

// One calibration run's state: its factor per operation it made calls of, and the delays of its local
// messages beyond their model (equally likely values; empty: none).
struct RunState {
  std::string trace;
  std::map<std::string, double> factor;
  std::vector<double> message_delays_s = {};
};

// The range the models were calibrated over on one computer, for the prediction's distance from it
// (a prediction's spread grows with that distance, AppModels::model_error_log).
struct CalibratedRange {
  std::vector<int> ranks;                                  // ranks of the calibration runs on the computer, ascending
  std::map<std::string, std::pair<double, double>> sizes;  // app ("lu": n, "integrate": steps) -> [min, max]
  std::vector<std::string> variants;                       // LU variants of the runs ("basic"), sorted
  std::vector<std::string> with;                           // the other computers of its runs across computers, sorted
};

// The application-regime models of one computer.
struct AppModels {
  std::vector<OperationModel> operations;  // at most one per operation
  std::optional<MessageModel> messages;    // between two ranks of the computer; absent: not calibrated
  std::vector<RunState> runs;              // the calibration runs' states, drawn from when sampling
  // s(k) for k = 1 .. the computer's cores: speed of the memory-bound kernels (BLAS/LAPACK) of each of
  // k ranks computing at once, relative to one rank alone (s(1) = 1); empty: not calibrated.
  std::vector<double> concurrency_speed = {};
  // The application's own time between its traced operations, per compute call: its loops, its
  // bookkeeping, the runtime's dispatch (0.9-1.7 µs a call on the project's VM, 0.1-1.4% of LU's time
  // on one rank, more with smaller blocks). The simulated back-end adds it to every compute call;
  // 0: not calibrated.
  double call_gap_s = 0;
  CalibratedRange calibrated = {};
  // What the mechanisms miss, per application ("lu", "integrate"): ln(measured / predicted) of each of
  // its calibration configurations (the median over its runs), less their median. A sampled prediction
  // multiplies its time by exp((1 + d) · e) for one e drawn between its application's (their quantile
  // function, interpolated), d its distance from the calibrated range in octaves (apps/sim app_jobs.hpp
  // extrapolation_distance); empty: none known. The key "" holds the pooled deviations of a profile
  // written before they were kept per application (an array in its JSON), drawn for every application.
  std::map<std::string, std::vector<double>> model_error_log = {};

  bool empty() const { return operations.empty(); }
  // The model of `op`; nullptr when there is none.
  const OperationModel* find(const std::string& op) const;
};

nlohmann::json to_json(const AppModels& m);
// Validates every field (InputError naming the file and JSON path).
AppModels app_models_from_json(const JsonNode& node);

// Draws the noise of one sampled run: a calibration run's state per computer, then ε per call. The
// stream is a fixed function of (seed, sample), so that samples are reproducible in any order and on
// any number of threads.
//
// Each computer draws one position u in [0, 1) per sample; an operation's factor is that of the run at
// u among the calibration runs that made calls of it (in the profile's order), and the message delays
// those of the run at u among the runs that have some. The runs of an application share their
// operations, so one u keeps a run's operations in one state. Drawn among all runs, the other
// application's runs, which hold no factor of the operation, gave it a factor of 1: the quick matrix's
// integration (four of twelve calibration runs) drew the typical state in two samples of three, and its
// 80% intervals, ±5% wide, held 1 of 21 runs that spread ±30% on a loaded machine.
class OperationNoise {
 public:
  OperationNoise(std::uint64_t seed, std::uint64_t sample);
  // The state factor of `op` in the run drawn for the computer whose models are `models`
  // (`computer` is its index); 1 when no calibration run made calls of `op`.
  double run_factor(std::size_t computer, const AppModels& models, const std::string& op);
  // A delay drawn from the local-message delays of the run drawn for the computer (0 when it has none).
  double message_delay(std::size_t computer, const AppModels& models);
  // A uniform draw in [0, 1).
  double uniform();

 private:
  Rng rng_;
  std::map<std::size_t, double> position_of_computer_;
  std::map<std::pair<std::size_t, std::string>, double> factor_of_;  // (computer, op) -> the drawn factor
  std::map<std::size_t, const std::vector<double>*> delays_of_;      // computer -> the drawn run's delays
  double position(std::size_t computer);
};

}  // namespace hetperf
