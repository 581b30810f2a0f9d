// How hetperf's MPI programs end (header only, for programs built with MPI; the model library itself
// never includes it).
//
// MPICH 4.0's ch4:ucx MPI_Finalize closes every UCX endpoint, progresses them until they are closed,
// and only then waits in a PMI barrier that no longer progresses UCX (later MPICH moved that barrier
// before the close for this reason, pmodels/mpich#6596). Across a testbed computer capped at 50%
// (docs/testbed.md) runs hung there for ever: one rank in the PMI read, its peer polling UCX.
//  - An MPI_Barrier right before MPI_Finalize, so that the ranks enter it together, took the hang of a
//    bare MPI_Init/MPI_Bcast/MPI_Finalize from 5 of 30 runs to none of 40, but short ping-pong runs
//    with 4 MiB messages still hung in 3 of 30.
//  - Entering MPI_Finalize rank after rank, 20 ms apart, still hung 3 of 60 of those: not only closes
//    that cross in flight.
// A watchdog that ended a hung MPI_Finalize after 10 s (a busy rank first) still left mpiexec saying
// 255 in 6 of 20 hung runs, and with more ranks hydra's abort lost the result. So when the ranks span
// several hosts they do not call MPI_Finalize at all: after the closing collective every message has
// been received and every result printed and written; each rank flushes, waits kLeaveDelayMs so that
// every peer is out of its last MPI call, tells hydra it finalised (tell_pmi_finalized) and leaves
// with _exit. hydra returns the ranks' status.
// Leaving at once after the collective made a peer still inside it see the connection drop and exit 1
// (6 of 40 runs); with the delay, 0 of 40, and no hang (ten 1 MiB ping-pongs between a and b of the
// duo testbed, whose MPI_Finalize hung 19 of 40). A rank that leaves alone while others sit in
// MPI_Finalize hangs the run: every rank must end this way. On one host over shared memory (never seen
// to hang) they call MPI_Finalize as usual; over TCP alone (the testbed's UCX_TLS) they leave as across
// hosts.
#pragma once

#include <mpi.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace hetperf {

inline constexpr int kLeaveDelayMs = 200;

// What MPI_Finalize would tell the process manager last (PMI-1's wire protocol on the socket hydra
// passes in PMI_FD): that this process finalised, so that hydra does not take its exit for a crash and
// abort the job (without it, 2 of 10 eight-rank runs across the testbed ended with 255; with it, 0 of
// 40). No answer within 5 s, or another process manager (no PMI_FD): nothing more is done.
inline void tell_pmi_finalized() {
  const char* fd_text = std::getenv("PMI_FD");
  if (fd_text == nullptr) return;
  const int fd = std::atoi(fd_text);
  static constexpr char kFinalize[] = "cmd=finalize\n";
  if (::write(fd, kFinalize, sizeof kFinalize - 1) != static_cast<ssize_t>(sizeof kFinalize - 1)) return;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 5000) == 1) {
    char answer[256];
    [[maybe_unused]] const ssize_t n = ::read(fd, answer, sizeof answer);  // cmd=finalize_ack
  }
}

// The ranks of `comm` on this rank's host (by processor name), ordered as in `comm`; the caller frees
// it. Collective.
inline MPI_Comm host_communicator(MPI_Comm comm) {
  int size = 0, rank = 0, length = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME, '\0');
  char* mine = names.data() + static_cast<std::size_t>(rank) * MPI_MAX_PROCESSOR_NAME;
  MPI_Get_processor_name(mine, &length);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  int color = rank;  // the lowest rank on this host
  for (int r = 0; r < rank; ++r) {
    if (std::strncmp(names.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME, mine,
                     MPI_MAX_PROCESSOR_NAME) == 0) {
      color = r;
      break;
    }
  }
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split(comm, color, rank, &host);
  return host;
}

// Whether this process's UCX may use TCP and nothing else between ranks (UCX_TLS lists only tcp and
// self, as the testbed's launcher sets it): the ranks then talk over sockets even on one host.
inline bool ucx_over_tcp_only() {
  const char* tls = std::getenv("UCX_TLS");
  if (tls == nullptr || *tls == '\0' || *tls == '^') return false;  // UCX's choice, or an exclusion list
  bool tcp = false;
  for (const char* p = tls; *p != '\0';) {
    const char* end = std::strchr(p, ',');
    const std::string name(p, end ? static_cast<std::size_t>(end - p) : std::strlen(p));
    if (name == "tcp")
      tcp = true;
    else if (name != "self")
      return false;
    p = end ? end + 1 : p + name.size();
  }
  return tcp;
}

// Whether the ranks of `comm` must leave without MPI_Finalize: they run on more than one host (by
// processor name), or any of them talks over TCP alone (ucx_over_tcp_only), so every rank leaves the
// same way. One collective, the maximum of each rank's name hash, of its complement (whose maximum is
// the complement of the smallest hash) and of its TCP flag; it is also the barrier.
inline bool leave_without_finalize(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  const std::uint64_t hash = std::hash<std::string>{}(std::string(name, static_cast<std::size_t>(length)));
  const std::uint64_t mine[3] = {hash, ~hash, ucx_over_tcp_only() ? 1u : 0u};
  std::uint64_t most[3] = {};
  MPI_Allreduce(mine, most, 3, MPI_UINT64_T, MPI_MAX, comm);
  const bool one_host = most[0] == ~most[1];  // the largest hash is the smallest
  return !one_host || most[2] != 0;
}

// Collective over `comm` (every rank calls it, with no message of it outstanding); ends MPI. Across
// hosts, or on one host over TCP alone, it ends the process too, with `status`; else it returns after
// MPI_Finalize. Over TCP alone MPI_Finalize hangs on one host as it does across hosts: two ranks of one
// testbed computer (hetperf-integrate -hosts b,b) and the host's loopback ping-pong under the
// testbed's UCX_TLS=tcp,self each hung there once on 2026-11-29, one rank reading PMI, the other
// progressing UCX's TCP endpoints (two `validate --testbed` runs lost after 13 and 14 minutes).
inline void finalize_together(MPI_Comm comm, int status) {
  const bool leave = leave_without_finalize(comm);
  std::fflush(nullptr);
  if (leave) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kLeaveDelayMs));
    tell_pmi_finalized();
    std::_Exit(status);
  }
  MPI_Finalize();
}

}  // namespace hetperf
