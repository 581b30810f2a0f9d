// Runtime: turns each call into a request for the back-end and records its trace event.
#include "hetperf/apps/runtime.hpp"

namespace hetperf::apps {

Runtime::Operation Runtime::submit(const Request& r, TraceEvent event) {
  event.rank = rank();
  event.iteration = iteration_;
  event.start_s = now();
  bool done = start(r, event);
  if (done) {
    event.end_s = now();
    record(event);
  }
  return {this, done};
}

Runtime::Operation Runtime::send(int dest, int tag, const void* data, std::uint64_t bytes) {
  Request r{Op::kSend};
  r.peer = dest, r.tag = tag, r.in = data, r.bytes = bytes;
  TraceEvent e;
  e.op = "send", e.peer = dest, e.tag = tag, e.bytes = bytes;
  return submit(r, e);
}

Runtime::Operation Runtime::recv(int source, int tag, void* data, std::uint64_t bytes) {
  Request r{Op::kRecv};
  r.peer = source, r.tag = tag, r.out = data, r.bytes = bytes;
  TraceEvent e;
  e.op = "recv", e.peer = source, e.tag = tag, e.bytes = bytes;
  return submit(r, e);
}

Runtime::Operation Runtime::barrier() {
  TraceEvent e;
  e.op = "barrier";
  return submit(Request{Op::kBarrier}, e);
}

Runtime::Operation Runtime::isend(int dest, int tag, const void* data, std::uint64_t bytes, int* handle) {
  Request r{Op::kIsend};
  r.peer = dest, r.tag = tag, r.in = data, r.bytes = bytes, r.handle = *handle = next_handle_++;
  TraceEvent e;
  e.op = "isend", e.peer = dest, e.tag = tag, e.bytes = bytes;
  return submit(r, e);
}

Runtime::Operation Runtime::wait(int handle) {
  Request r{Op::kWait};
  r.handle = handle;
  TraceEvent e;
  e.op = "wait";
  return submit(r, e);
}

Runtime::Operation Runtime::getrf(int m, int n, double* a, int lda, int* ipiv) {
  Request r{Op::kGetrf};
  r.m = m, r.n = n, r.c = a, r.lda = lda, r.ipiv = ipiv;
  TraceEvent e;
  e.op = "getrf", e.m = m, e.n = n;
  return submit(r, e);
}

Runtime::Operation Runtime::laswp(int n, double* a, int lda, int k1, int k2, const int* ipiv, int rows) {
  Request r{Op::kLaswp};
  r.m = rows, r.n = n, r.c = a, r.lda = lda, r.k1 = k1, r.k2 = k2, r.ipiv_in = ipiv;
  TraceEvent e;
  e.op = "laswp", e.m = rows, e.n = n, e.k = k2 - k1 + 1;
  return submit(r, e);
}

Runtime::Operation Runtime::trsm(int m, int n, const double* a, int lda, double* b, int ldb) {
  Request r{Op::kTrsm};
  r.m = m, r.n = n, r.a = a, r.lda = lda, r.c = b, r.ldb = ldb;
  TraceEvent e;
  e.op = "trsm", e.m = m, e.n = n;
  return submit(r, e);
}

Runtime::Operation Runtime::gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb, double* c,
                                 int ldc) {
  Request r{Op::kGemm};
  r.m = m, r.n = n, r.k = k, r.a = a, r.lda = lda, r.b = b, r.ldb = ldb, r.c = c, r.ldc = ldc;
  TraceEvent e;
  e.op = "gemm", e.m = m, e.n = n, e.k = k;
  return submit(r, e);
}

Runtime::Operation Runtime::pack(int m, int n, const double* a, int lda, double* out) {
  Request r{Op::kPack};
  r.m = m, r.n = n, r.a = a, r.lda = lda, r.c = out;
  TraceEvent e;
  e.op = "pack", e.m = m, e.n = n;
  return submit(r, e);
}

Runtime::Operation Runtime::integrate(double a, double b, std::uint64_t steps, double* sum) {
  Request r{Op::kIntegrate};
  r.x0 = a, r.x1 = b, r.steps = steps, r.result = sum;
  TraceEvent e;
  e.op = "integrate", e.bytes = 0, e.m = static_cast<int>(std::min<std::uint64_t>(steps, INT32_MAX));
  return submit(r, e);
}

Runtime::Operation Runtime::disk_write(std::uint64_t bytes) {
  Request r{Op::kDiskWrite};
  r.bytes = bytes;
  TraceEvent e;
  e.op = "disk_write", e.bytes = bytes;
  return submit(r, e);
}

}  // namespace hetperf::apps
