// The small runtime interface the applications are written against (after the DPS
// simulator's partial direct execution, DPS paper sections 3-5, and the MPI-Sim paper): rank,
// size, send, receive, barrier, and the named compute kernels. Every operation is awaited:
//   co_await rt.send(1, kTagPanel, panel.data(), bytes);
// A real back-end performs the operation and the await never suspends; a simulated back-end charges
// the operation's modelled time and resumes the coroutine later. Data pointers may be null in a
// back-end that does not hold data (the paper's "NOALLOC" mode): applications allocate matrices only
// when holds_data() is true.
#pragma once

#include <coroutine>
#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/model/trace.hpp"

namespace hetperf::apps {

class Runtime {
 public:
  virtual ~Runtime() = default;

  // What `co_await` on an operation returns: ready when the back-end completed it synchronously.
  struct Operation {
    Runtime* runtime;
    bool completed;
    bool await_ready() const noexcept { return completed; }
    void await_suspend(std::coroutine_handle<> h) { runtime->park(h); }
    void await_resume() const noexcept {}
  };

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // True when buffers hold real data (real back-end); false when only sizes matter.
  virtual bool holds_data() const = 0;
  // Seconds since the run started (wall clock for real runs, simulated time otherwise).
  virtual double now() const = 0;

  Operation send(int dest, int tag, const void* data, std::uint64_t bytes);
  Operation recv(int source, int tag, void* data, std::uint64_t bytes);
  Operation barrier();
  // Non-blocking send: starts the send and returns at once with `*handle` set; the buffer must stay
  // untouched until wait(*handle) returns. Every handle must be waited for exactly once.
  Operation isend(int dest, int tag, const void* data, std::uint64_t bytes, int* handle);
  Operation wait(int handle);

  // Kernels on column-major double matrices (BLAS/LAPACK argument conventions).
  // getrf: LU with partial pivoting of the m x n panel a (lda), pivots into ipiv (1-based, n of them).
  Operation getrf(int m, int n, double* a, int lda, int* ipiv);
  // laswp: apply the row interchanges ipiv[k1-1 .. k2-1] (1-based) to the n columns of a. `rows`: how
  // many rows of a the interchanges may reach (the panel's height), recorded as the call's m for the
  // trace and the operation models (the time grows with it); 0 when unknown.
  Operation laswp(int n, double* a, int lda, int k1, int k2, const int* ipiv, int rows = 0);
  // trsm: b (m x n) := L^-1 b with L the unit lower triangle of the m x m matrix a.
  Operation trsm(int m, int n, const double* a, int lda, double* b, int ldb);
  // gemm: c (m x n) -= a (m x k) * b (k x n).
  Operation gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb, double* c, int ldc);
  // pack: copy the m x n block a (lda) into the contiguous m x n buffer out (leading dimension m). A
  // memory copy, but one LU makes of every panel it sends: 1-2.5% of its time on one rank.
  Operation pack(int m, int n, const double* a, int lda, double* out);
  // integrate: trapezium rule of 2 sin x + e^x over [a, b] with `steps` steps; the result in *sum.
  Operation integrate(double a, double b, std::uint64_t steps, double* sum);
  // disk_write: write `bytes` bytes to local scratch storage (and make them durable).
  Operation disk_write(std::uint64_t bytes);

  // Before the clock starts, collective over ranks 0 .. ranks-1: sends from each of `buffers` (of
  // `bytes` each) to every other of those ranks and receives into each from every other, untraced. A
  // back-end whose first message from or into a buffer costs more than the next ones (MPI over UCX
  // registers its pages: 5-6 ms for the first 3 MiB panel on this project's VM, 0.5 ms for the next)
  // then charges that to no timed operation. A simulated back-end has nothing to prepare.
  virtual void prepare_buffers(int ranks, const std::vector<void*>& buffers, std::uint64_t bytes) {
    (void)ranks, (void)buffers, (void)bytes;
  }

  const std::vector<TraceEvent>& trace() const { return trace_; }

  // The back-end interface: each call above becomes one Request.
  enum class Op { kSend, kRecv, kBarrier, kIsend, kWait, kGetrf, kLaswp, kTrsm, kGemm, kPack, kIntegrate, kDiskWrite };
  struct Request {
    Op op;
    int peer = -1, tag = 0;
    int handle = -1;  // isend, wait
    const void* in = nullptr;
    void* out = nullptr;
    std::uint64_t bytes = 0;
    int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, k1 = 0, k2 = 0;
    const double* a = nullptr;
    const double* b = nullptr;
    double* c = nullptr;
    int* ipiv = nullptr;
    const int* ipiv_in = nullptr;
    double x0 = 0, x1 = 0;
    std::uint64_t steps = 0;
    double* result = nullptr;
  };

  // Tags the following operations with an application iteration (-1: none).
  void set_iteration(int iteration) { iteration_ = iteration; }

 protected:
  // Performs or schedules `r`; returns true when it completed synchronously. A back-end that
  // returns false resumes the parked coroutine when the operation ends, and records its trace event.
  virtual bool start(const Request& r, TraceEvent& event) = 0;
  // Called when a coroutine suspends on an incomplete operation.
  virtual void park(std::coroutine_handle<> h) = 0;
  // Keeps a completed operation's event; a back-end may summarise instead of keeping every event.
  virtual void record(const TraceEvent& event) { trace_.push_back(event); }

  std::vector<TraceEvent> trace_;
  int iteration_ = -1;

 private:
  Operation submit(const Request& r, TraceEvent event);
  int next_handle_ = 0;
};

}  // namespace hetperf::apps
