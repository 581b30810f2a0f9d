// hetperf-lu: the real block LU application. `mpiexec -n P hetperf-lu --n 1024 --r 128 [--variant
// basic|pipelined|flow_control [--window W]] [--parallel-multiply S] [--bcast sequential|tree|ring]
// [--expand K --expand-after-iteration I] [--remove K --after-iteration I] [--trace trace.json]`. Rank 0 checks
// the factors as HPL does (the scaled residual of a solve below 16) and prints a JSON summary; exit 1 if
// the check fails.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <CLI/CLI.hpp>

#include "hetperf/apps/lu.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/apps/mpi/mpi_runtime.hpp"

using namespace hetperf;
using namespace hetperf::apps;

namespace {

// HPL's check of the factors (HPL_pdtest): solve A x = b with them, b the row sums of A, and scale
// the residual, ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n) with eps = 2^-53; the
// factorisation passes below 16, HPL's default threshold. O(n^2): the ||PA - LU||_F it replaces
// multiplied L by U, three times the factorisation's flops (0.24 s of a 0.43 s run at n = 1536).
double scaled_residual(const LuConfig& cfg, const LuResult& res) {
  const int n = cfg.n;
  const auto idx = [n](int i, int j) { return static_cast<std::size_t>(j) * n + i; };
  std::vector<double> a(static_cast<std::size_t>(n) * n), b(n, 0.0), row_abs(n, 0.0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double v = lu_matrix_element(cfg.seed, i, j);
      a[idx(i, j)] = v;
      b[i] += v;
      row_abs[i] += std::fabs(v);
    }
  }
  std::vector<double> x = b;
  for (int i = 0; i < n; ++i) {  // P b: the row interchanges in order (LAPACK's convention)
    const int p = res.pivots[i] - 1;
    if (p != i) std::swap(x[i], x[p]);
  }
  cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, n, res.factors.data(), n, x.data(), 1);
  cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, n, res.factors.data(), n, x.data(), 1);
  std::vector<double> r = b;  // r := A x - b
  cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, a.data(), n, x.data(), 1, -1.0, r.data(), 1);
  const auto inf_norm = [](const std::vector<double>& v) {
    double m = 0;
    for (double e : v) m = std::max(m, std::fabs(e));
    return m;
  };
  const double eps = std::ldexp(1.0, -53);
  const double scale = eps * (inf_norm(row_abs) * inf_norm(x) + inf_norm(b)) * n;
  const double residual = inf_norm(r) / scale;
  return std::isfinite(residual) ? residual : std::numeric_limits<double>::infinity();
}

// Seconds OpenBLAS's own dgetrf takes on the whole matrix: the reference rate for the block LU.
double reference_dgetrf_s(const LuConfig& cfg) {
  const int n = cfg.n;
  std::vector<double> a(static_cast<std::size_t>(n) * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(j) * n + i] = lu_matrix_element(cfg.seed, i, j);
  }
  std::vector<int> ipiv(n);
  double t0 = MPI_Wtime();
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a.data(), n, ipiv.data());
  return MPI_Wtime() - t0;
}

// hetperf-lu's options.
struct LuOptions {
  LuConfig cfg;
  std::string variant = "basic", bcast = "sequential", trace_file, scratch = ".";
  int threads = 1;
  bool reference = false;
};

void add_options(CLI::App& app, LuOptions& o) {
  LuConfig& cfg = o.cfg;
  app.add_option("--n", cfg.n, "Matrix order")->capture_default_str();
  app.add_option("--r", cfg.r, "Block width (divides n)")->capture_default_str();
  app.add_option("--variant", o.variant,
                 "basic (barrier per iteration), pipelined (look-ahead) or flow_control (look-ahead and at most "
                 "--window non-blocking panel sends in flight)")
      ->capture_default_str();
  app.add_option("--window", cfg.window, "flow_control: panel sends in flight at most")->capture_default_str();
  app.add_option("--parallel-multiply", cfg.parallel_multiply,
                 "PM: split each trailing update into S column shares computed on S ranks (1: no split; S divides "
                 "--r, at most the ranks that stay)")
      ->capture_default_str();
  app.add_option("--bcast", o.bcast,
                 "Panel broadcast: sequential (the owner sends to each rank in turn), tree (binomial) or ring "
                 "(HPL's increasing ring)")
      ->capture_default_str();
  app.add_option("--remove", cfg.remove, "Ranks that leave (the highest-numbered)")->capture_default_str();
  app.add_option("--after-iteration", cfg.remove_after_iteration, "Iteration after which they leave")
      ->capture_default_str();
  app.add_option("--expand", cfg.expand, "Ranks that start idle and join (the highest-numbered)")
      ->capture_default_str();
  app.add_option("--expand-after-iteration", cfg.expand_after_iteration, "Iteration after which they join")
      ->capture_default_str();
  app.add_option("--seed", cfg.seed, "Seed of the random matrix")->capture_default_str();
  app.add_option("--threads", o.threads, "OpenBLAS threads per rank")->capture_default_str();
  app.add_flag("--reference", o.reference,
               "Also time OpenBLAS dgetrf on the whole matrix on rank 0 and report the ratio");
  app.add_option("--trace", o.trace_file, "Write the trace (hetperf.trace/1) to this file (default: none)");
}

// The ranks' trace events as TraceEvents, and the iterations they make (hetperf.trace/1's "iterations").
nlohmann::json iterations_of(const nlohmann::json& ranks, const LuConfig& cfg, int size, std::vector<TraceEvent>& all) {
  for (const auto& rk : ranks) {
    for (const auto& e : rk["events"]) {
      TraceEvent t;
      t.rank = rk["rank"];
      t.op = e["op"];
      t.iteration = e.value("iteration", -1);
      t.start_s = e["start_s"];
      t.end_s = e["end_s"];
      t.peer = e.value("peer", -1);
      t.tag = e.value("tag", 0);
      t.bytes = e.value("bytes", std::uint64_t{0});
      all.push_back(t);
    }
  }
  nlohmann::json iterations = nlohmann::json::array();
  for (const auto& it : summarize_iterations(all, [&](int k) { return lu_ranks_in_iteration(cfg, size, k); })) {
    iterations.push_back({{"iteration", it.iteration},
                          {"start_s", it.start_s},
                          {"end_s", it.end_s},
                          {"time_s", it.end_s - it.start_s},
                          {"compute_s", it.compute_s},
                          {"ranks", it.ranks},
                          {"efficiency", it.efficiency()}});
  }
  return iterations;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  LuOptions o;
  LuConfig& cfg = o.cfg;
  CLI::App app{"Block LU factorisation with partial pivoting (real MPI back-end)", "hetperf-lu"};
  add_options(app, o);
  if (auto exit_code = parse_on_all_ranks(app, argc, argv)) return *exit_code;
  try {
    cfg.variant = parse_lu_variant(o.variant);
    cfg.bcast = parse_lu_bcast(o.bcast);
  } catch (const InputError& e) {
    fail_on_all_ranks(MPI_COMM_WORLD, e.what());
  }
  if (std::string error = cfg.validate(size); !error.empty()) fail_on_all_ranks(MPI_COMM_WORLD, error);
  openblas_set_num_threads(o.threads);

  MpiRuntime rt(MPI_COMM_WORLD, o.scratch);
  LuResult result;
  Task task = lu_rank(rt, cfg, result);
  MpiRuntime::run(task);
  // From the barrier after the matrix was generated to the last rank's end of the factorisation.
  double clock[2] = {result.factorization_start_s, result.factorization_end_s}, latest_clock[2] = {0, 0};
  MPI_Reduce(clock, latest_clock, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  const double factorization_s = latest_clock[1] - latest_clock[0];
  nlohmann::json ranks = gather_traces(rt);
  if (rank != 0) return finish_run(MPI_COMM_WORLD, "lu", {}, {}, {}, "", true, "");
  const double residual = scaled_residual(cfg, result);
  const bool ok = residual < 16;
  nlohmann::json config = {{"n", cfg.n},           {"r", cfg.r},
                           {"variant", o.variant}, {"window", cfg.window},
                           {"remove", cfg.remove}, {"after_iteration", cfg.remove_after_iteration},
                           {"seed", cfg.seed},     {"threads", o.threads},
                           {"bcast", o.bcast},     {"parallel_multiply", cfg.parallel_multiply}};
  if (cfg.expand > 0) config["expand"] = {{"ranks", cfg.expand}, {"after_iteration", cfg.expand_after_iteration}};
  std::vector<TraceEvent> all;
  const nlohmann::json iterations = iterations_of(ranks, cfg, size, all);
  double flops = 2.0 / 3.0 * std::pow(static_cast<double>(cfg.n), 3);
  nlohmann::json summary = {{"factorization_s", factorization_s},
                            {"gflops", flops / factorization_s / 1e9},
                            {"residual", residual},
                            {"residual_ok", ok}};
  if (cfg.expand > 0 || cfg.remove > 0)
    summary["redistributions"] = redistributions_json(lu_redistributions(all, cfg, size), 0);
  if (o.reference) {
    double ref = reference_dgetrf_s(cfg);
    summary["reference_dgetrf_s"] = ref;
    summary["reference_gflops"] = flops / ref / 1e9;
    summary["rate_vs_dgetrf"] = ref / factorization_s;
  }
  char failure[96];
  std::snprintf(failure, sizeof failure, "scaled residual %.3e is not below 16 (HPL's check)", residual);
  return finish_run(MPI_COMM_WORLD, "lu", config, summary, {{"iterations", iterations}, {"ranks", ranks}}, o.trace_file,
                    ok, failure);
}
