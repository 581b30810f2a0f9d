// Real back-end: MPI messages and OpenBLAS/LAPACKE kernels.
#include "hetperf/apps/mpi/mpi_runtime.hpp"

#include <cblas.h>
#include <fcntl.h>
#include <lapacke.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hetperf/apps/integrate.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/mpi_finalize.hpp"
#include "hetperf/model/run_usage.hpp"

namespace hetperf::apps {

MpiRuntime::MpiRuntime(MPI_Comm comm, std::filesystem::path scratch_dir)
    : comm_(comm), scratch_dir_(std::move(scratch_dir)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Barrier(comm_);
  t0_ = MPI_Wtime();
  // Ranks of one host read one clock (MPICH's MPI_Wtime is the host's monotonic clock): they take the
  // origin of their host's lowest rank, so that their traces line up to the microsecond and a message's
  // send and receive on one host can be compared (calibrate --trace), rather than differ by the
  // barrier's release skew (a time slice, on an oversubscribed core). Hosts keep their own origins
  // (run_facts records "clock_origin": "host").
  MPI_Comm host = host_communicator(comm_);
  MPI_Bcast(&t0_, 1, MPI_DOUBLE, 0, host);
  MPI_Comm_free(&host);
}

void MpiRuntime::run(Task& task) {
  task.resume();
  HETPERF_CHECK(task.done(), "an operation of the real back-end suspended");
  task.rethrow_if_failed();
}

void MpiRuntime::park(std::coroutine_handle<>) {
  HETPERF_CHECK(false, "the real back-end completes every operation synchronously");
}

namespace {

double thread_cpu_s() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

void MpiRuntime::prepare_buffers(int ranks, const std::vector<void*>& buffers, std::uint64_t bytes) {
  constexpr int kPrepareTag = 32767;  // the least upper bound MPI allows; no application tag
  const int count = static_cast<int>(bytes);
  // Pairs at distance d = 1 .. ranks-1 in turn: every rank sends to me + d while it receives from me - d.
  for (int d = 1; d < ranks && rank_ < ranks; ++d) {
    const int to = (rank_ + d) % ranks, from = (rank_ - d + ranks) % ranks;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      void* in = buffers[(i + 1) % buffers.size()];
      if (in == buffers[i]) continue;  // one buffer cannot be sent from and received into at once
      MPI_Sendrecv(buffers[i], count, MPI_BYTE, to, kPrepareTag, in, count, MPI_BYTE, from, kPrepareTag, comm_,
                   MPI_STATUS_IGNORE);
    }
  }
}

// Only the integration calls are timed: the waiting-share experiment reads them, calibration fits
// them on their CPU time where ranks outnumber cores (TraceEvent::cpu_s), and LU's many short kernel
// calls (12 µs for a late laswp) should not pay a system call for the thread's CPU clock.
bool MpiRuntime::start(const Request& r, TraceEvent& event) {
  if (r.op != Op::kIntegrate) return issue(r, event);
  const double cpu = thread_cpu_s(), wall = MPI_Wtime();
  const bool done = issue(r, event);
  event.cpu_s = std::max(0.0, thread_cpu_s() - cpu);
  compute_cpu_s_ += event.cpu_s;
  compute_wall_s_ += MPI_Wtime() - wall;
  return done;
}

bool MpiRuntime::issue(const Request& r, TraceEvent&) {
  switch (r.op) {
    case Op::kSend:
      MPI_Send(r.in, static_cast<int>(r.bytes), MPI_BYTE, r.peer, r.tag, comm_);
      break;
    case Op::kRecv:
      MPI_Recv(r.out, static_cast<int>(r.bytes), MPI_BYTE, r.peer, r.tag, comm_, MPI_STATUS_IGNORE);
      break;
    case Op::kBarrier:
      MPI_Barrier(comm_);
      break;
    case Op::kIsend: {
      MPI_Request request;
      MPI_Isend(r.in, static_cast<int>(r.bytes), MPI_BYTE, r.peer, r.tag, comm_, &request);
      pending_.emplace(r.handle, request);
      break;
    }
    case Op::kWait: {
      auto it = pending_.find(r.handle);
      HETPERF_CHECK(it != pending_.end(), "wait on an unknown or finished send handle");
      MPI_Wait(&it->second, MPI_STATUS_IGNORE);
      pending_.erase(it);
      break;
    }
    case Op::kGetrf: {
      int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, r.m, r.n, r.c, r.lda, r.ipiv);
      HETPERF_CHECK(info >= 0, "dgetrf rejected its arguments");
      break;
    }
    case Op::kLaswp:
      LAPACKE_dlaswp(LAPACK_COL_MAJOR, r.n, r.c, r.lda, r.k1, r.k2, r.ipiv_in, 1);
      break;
    case Op::kTrsm:
      cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, r.m, r.n, 1.0, r.a, r.lda, r.c, r.ldb);
      break;
    case Op::kGemm:
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, r.m, r.n, r.k, -1.0, r.a, r.lda, r.b, r.ldb, 1.0, r.c,
                  r.ldc);
      break;
    case Op::kPack:
      for (int c = 0; c < r.n; ++c) {
        std::memcpy(r.c + static_cast<std::size_t>(c) * r.m, r.a + static_cast<std::size_t>(c) * r.lda,
                    sizeof(double) * static_cast<std::size_t>(r.m));
      }
      break;
    case Op::kIntegrate:
      *r.result = trapezium(r.x0, r.x1, r.steps);
      break;
    case Op::kDiskWrite: {
      std::filesystem::path file = scratch_dir_ / (".hetperf-app-" + std::to_string(::getpid()));
      int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd < 0) throw EnvironmentError(file.string() + ": cannot create: " + std::strerror(errno));
      std::vector<char> buf(1 << 20, 'x');
      for (std::uint64_t done = 0; done < r.bytes;) {
        ssize_t w = ::write(fd, buf.data(), std::min<std::uint64_t>(buf.size(), r.bytes - done));
        if (w <= 0) break;
        done += static_cast<std::uint64_t>(w);
      }
      ::fdatasync(fd);
      ::close(fd);
      ::unlink(file.c_str());
      break;
    }
  }
  return true;
}

nlohmann::json gather_traces(const MpiRuntime& rt) {
  nlohmann::json mine = nlohmann::json::array();
  for (const TraceEvent& e : rt.trace()) mine.push_back(to_json(e));
  std::string text = mine.dump();
  int len = static_cast<int>(text.size());
  std::vector<int> lens(rt.size()), offsets(rt.size());
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, rt.comm());
  std::string all;
  if (rt.rank() == 0) {
    int total = 0;
    for (int i = 0; i < rt.size(); ++i) offsets[i] = total, total += lens[i];
    all.resize(total);
  }
  MPI_Gatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0, rt.comm());
  nlohmann::json ranks = nlohmann::json::array();
  if (rt.rank() == 0) {
    for (int i = 0; i < rt.size(); ++i) {
      ranks.push_back({{"rank", i}, {"events", nlohmann::json::parse(all.substr(offsets[i], lens[i]))}});
    }
  }
  return ranks;
}

namespace {
// From program start (static initialisation, before MPI_Init) to the end of the run.
const RunUsageMeter& run_meter() {
  static const RunUsageMeter meter;
  return meter;
}
[[maybe_unused]] const RunUsageMeter& kStartMeter = run_meter();
}  // namespace

// This run's usage: rank 0's wall time, the CPU time of all ranks, the host's busy and steal shares.
nlohmann::json run_usage(MPI_Comm comm) {
  RunUsage u = run_meter().stop();
  double total_cpu = 0;
  MPI_Reduce(&u.cpu_s, &total_cpu, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  u.cpu_s = total_cpu;
  return to_json(u);
}

nlohmann::json run_facts(MPI_Comm comm) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  const auto cores = static_cast<unsigned>(usable_cpus());
  // Every rank's host and cores (collective): a run across hosts (a testbed, a cluster) is fitted
  // per host (calibrate --trace), each rank's calls under the computer it ran on.
  std::vector<char> hosts(rank == 0 ? static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME : 1);
  std::vector<unsigned> rank_cores(rank == 0 ? static_cast<std::size_t>(size) : 1);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  MPI_Gather(&cores, 1, MPI_UNSIGNED, rank_cores.data(), 1, MPI_UNSIGNED, 0, comm);
  if (rank != 0) return nlohmann::json::object();
  nlohmann::json rank_hosts = nlohmann::json::array();
  nlohmann::json host_cores = nlohmann::json::object();
  for (int r = 0; r < size; ++r) {
    const char* h = hosts.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    const std::string name(h, strnlen(h, MPI_MAX_PROCESSOR_NAME));
    rank_hosts.push_back(name);
    host_cores[name] = rank_cores[static_cast<std::size_t>(r)];
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int vlen = 0;
  MPI_Get_library_version(version, &vlen);
  std::string v(version, static_cast<std::size_t>(vlen));
  if (auto nl = v.find('\n'); nl != std::string::npos) v.resize(nl);
  return {{"host", host},
          {"cores", cores},
          {"ranks", size},
          {"oversubscribed", static_cast<unsigned>(size) > cores},
          {"rank_hosts", rank_hosts},
          {"host_cores", host_cores},
          {"clock_origin", "host"},
          {"mpi_library", v},
          {"blas", openblas_get_config()},
          {"blas_threads", openblas_get_num_threads()},
          {"time_utc", utc_now_iso8601()}};
}

int finish_run(MPI_Comm comm, const std::string& app, const nlohmann::json& config, const nlohmann::json& summary,
               nlohmann::json trace_fields, const std::string& trace_file, bool ok, const std::string& failure) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int status = ok ? 0 : 1;
  const nlohmann::json usage = run_usage(comm);  // collective: every rank
  // Collective too, on every rank whatever its arguments (hetperf-integrate passes the trace file to
  // rank 0 only).
  nlohmann::json facts = run_facts(comm);
  if (rank == 0) {
    if (!trace_file.empty()) {
      facts["usage"] = usage;
      nlohmann::json trace = {
          {"schema", "hetperf.trace/1"}, {"app", app}, {"backend", "mpi"}, {"config", config}, {"run", facts},
          {"summary", summary}};
      trace.update(trace_fields);
      write_json_file(trace_file, trace);
    }
    std::printf(
        "%s\n",
        nlohmann::json({{"app", app}, {"config", config}, {"summary", summary}, {"usage", usage}}).dump().c_str());
    if (!ok) std::fprintf(stderr, "error: %s\n", failure.c_str());
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  finalize_together(comm, status);
  return status;
}

std::optional<int> parse_on_all_ranks(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) app.exit(e);
    const int status = e.get_exit_code() == 0 ? 0 : 2;
    finalize_together(MPI_COMM_WORLD, status);
    return status;
  }
}

void fail_on_all_ranks(MPI_Comm comm, const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fprintf(stderr, "error: %s\n", message.c_str());
  finalize_together(comm, 2);
  std::exit(2);
}

}  // namespace hetperf::apps
