// hetperf-pingpong: MPI ping-pong between ranks 0 and 1 (UniMPP's "net", over MPICH).
// Run as `mpiexec -n 2 hetperf-pingpong [--sizes 0,32,1024] [--min-samples 10] [--target 0.02]
// [--time-cap 5] [--loggp LARGE_BYTES]`; rank 0 prints one JSON object on stdout: the hosts and, per
// message size, the one-way time (half a round trip) as a sample summary. A sample is the mean over a
// batch of round trips long enough (>= ~1 ms) for the clock to resolve it. With --loggp, also the
// LogGP parameters measured the Netgauge way (Hoefler, Lichei, Rehm: "Low-Overhead LogGP Parameter
// Assessment for Modern Interconnection Networks", IPDPS 2007):
//   o_s  time spent inside MPI_Send of a small message (the receiver is waiting for it);
//   o_r  time inside MPI_Recv of a small message that arrived while the receiver was busy (it waits
//        twice the round-trip time before calling MPI_Recv);
//   g    gap per message, (T(n) - T(1)) / (n - 1) for a train of n back-to-back messages followed by
//        one acknowledgement (T(1): a single message and its acknowledgement);
//   G    gap per byte, (g(large) - g(small)) / (large - small);
//   L    latency, RTT(small) / 2 - o_s - o_r (0 when overheads already account for the whole RTT).
// With --send-times MIN_BYTES, also per size of at least MIN_BYTES: the time a blocking MPI_Send of
// that size takes to return while its receiver already waits in MPI_Recv ("send_s"). Across a network
// a large send returns once the rest of its message fits in the buffers on the way (socket buffers,
// the link's queue), so these times tell how much of a message a sender leaves behind
// (calibrate/send_buffer.hpp).
// With --busy-sends MIN_BYTES, also per size of at least MIN_BYTES, up to the first that waited: the time a blocking
// MPI_Send of that size takes to return while its receiver is busy for "receiver_busy_s" (eight one-way times, at least
// 1 ms) before it posts its receive ("busy_sends"). A send that returns within half that time went out eagerly; one
// that waited for the receiver was a rendezvous. Eight, not four: over TCP an eager send of 1 MiB took 2.9 one-way
// times to return (0.82 ms, its receiver busy for 1.14 ms and not yet receiving), and half of four one-way times took
// it for one that waited. Between the largest eager size and the first that waited, powers of two are tried in
// bisection until they are a factor of two apart, then sizes halfway until they are 1/16 of the smaller apart: the
// eager limit (calibrate/eager_limit.hpp) to about 6%. With --fanout BYTES, on any number of ranks of one computer
// instead: rank 0 sends BYTES to every other rank in turn, round after round, and prints the period of a round
// ({"fanout": ...}); run with as many ranks as cores and with twice as many, it measures the hand-off of ranks that
// wait polling on an oversubscribed computer (HandoffMeasurement, hetperf/model/measurement.hpp).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/model/measurement.hpp"
#include "hetperf/model/mpi_finalize.hpp"
#include "hetperf/probes/repeat.hpp"

namespace {

// Every exit ends through hetperf::finalize_together (hetperf/model/mpi_finalize.hpp): across a capped
// testbed computer a bare MPI_Finalize can hang with MPICH 4.0.
int finalize_together(int status) {
  hetperf::finalize_together(MPI_COMM_WORLD, status);
  return status;
}

std::vector<std::uint64_t> parse_sizes(const char* text) {
  std::vector<std::uint64_t> sizes;
  std::string s(text);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') {
      std::fprintf(stderr, "hetperf-pingpong: --sizes: expected comma-separated byte counts, got '%s'\n", text);
      std::exit(2);
    }
    sizes.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return sizes;
}

// Round trips between ranks 0 and 1 (the message goes 0 -> 1 -> 0).
void round_trips(std::vector<char>& buf, int count, int rank, int n) {
  const int peer = 1 - rank;
  for (int k = 0; k < n; ++k) {
    if (rank == 0) {
      MPI_Send(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
    }
  }
}

// Repetitions so that a sample lasts about 1 ms, given the duration of one.
int batch_for(double one_s) { return one_s > 0 ? std::min(100000, std::max(1, static_cast<int>(1e-3 / one_s))) : 1000; }

// Rank 0 applies the stopping rule to `sample`; before each sample it tells rank 1 to run its side
// of `sample` too (both ranks call the same lambda). Returns the summary on rank 0.
template <typename F>
hetperf::SampleSummary coordinated(const hetperf::probes::RepeatOptions& repeat, int rank, F sample) {
  hetperf::SampleSummary s;
  int go = 1;
  if (rank == 0) {
    s = hetperf::probes::repeat_until_precise(repeat, [&] {
      MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
      return sample();
    });
    go = 0;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    for (;;) {
      MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (!go) break;
      sample();
    }
  }
  return s;
}

void busy_wait(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

// Gap per message for `count` bytes: a train of n messages 0 -> 1 and one empty acknowledgement,
// against a single message and its acknowledgement.
hetperf::SampleSummary measure_gap(std::vector<char>& buf, int count, int rank, int n,
                                   const hetperf::probes::RepeatOptions& repeat) {
  const int peer = 1 - rank;
  auto train = [&](int messages) {
    double t0 = MPI_Wtime();
    for (int k = 0; k < messages; ++k) {
      if (rank == 0)
        MPI_Send(buf.data(), count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      else
        MPI_Recv(buf.data(), count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
      MPI_Recv(nullptr, 0, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
      MPI_Send(nullptr, 0, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
  };
  train(n);  // warm-up
  return coordinated(repeat, rank, [&] {
    double t1 = 0;
    for (int k = 0; k < 5; ++k) t1 += train(1) / 5;
    double tn = train(n);
    return std::max(0.0, (tn - t1) / (n - 1));
  });
}

nlohmann::json measure_loggp(std::vector<char>& buf, int rank, const hetperf::probes::RepeatOptions& repeat,
                             std::uint64_t small, std::uint64_t large) {
  const int peer = 1 - rank;
  const int cs = static_cast<int>(small);
  // Round-trip time of the small message.
  round_trips(buf, cs, rank, 10);
  double t0 = MPI_Wtime();
  round_trips(buf, cs, rank, 10);
  int batch = batch_for((MPI_Wtime() - t0) / 10);
  MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
  hetperf::SampleSummary rtt = coordinated(repeat, rank, [&] {
    double t = MPI_Wtime();
    round_trips(buf, cs, rank, batch);
    return (MPI_Wtime() - t) / batch;
  });
  double wait_s = 0;
  if (rank == 0) wait_s = std::max(1e-5, 2 * rtt.mean);
  MPI_Bcast(&wait_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const int per_sample = std::max(1, std::min(batch, 200));

  // o_s: time inside MPI_Send; the receiver is already waiting; an acknowledgement separates sends.
  hetperf::SampleSummary os = coordinated(repeat, rank, [&] {
    double total = 0;
    for (int k = 0; k < per_sample; ++k) {
      if (rank == 0) {
        double t = MPI_Wtime();
        MPI_Send(buf.data(), cs, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
        total += MPI_Wtime() - t;
        MPI_Recv(nullptr, 0, MPI_CHAR, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf.data(), cs, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(nullptr, 0, MPI_CHAR, peer, 4, MPI_COMM_WORLD);
      }
    }
    return total / per_sample;
  });
  // o_r: rank 1 sends; rank 0 is busy for 2 RTT, so the message has arrived when MPI_Recv is called.
  hetperf::SampleSummary orr = coordinated(repeat, rank, [&] {
    double total = 0;
    for (int k = 0; k < per_sample; ++k) {
      if (rank == 0) {
        busy_wait(wait_s);
        double t = MPI_Wtime();
        MPI_Recv(buf.data(), cs, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        total += MPI_Wtime() - t;
        MPI_Send(nullptr, 0, MPI_CHAR, peer, 6, MPI_COMM_WORLD);
      } else {
        MPI_Send(buf.data(), cs, MPI_CHAR, peer, 5, MPI_COMM_WORLD);
        MPI_Recv(nullptr, 0, MPI_CHAR, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
    return total / per_sample;
  });
  hetperf::SampleSummary g_small = measure_gap(buf, cs, rank, 100, repeat);
  hetperf::SampleSummary g_large = measure_gap(buf, static_cast<int>(large), rank, 10, repeat);
  if (rank != 0) return {};
  double big_g = (g_large.mean - g_small.mean) / static_cast<double>(large - small);
  double latency = std::max(0.0, rtt.mean / 2 - os.mean - orr.mean);
  return {{"small_size_bytes", small},
          {"large_size_bytes", large},
          {"send_overhead_s", hetperf::to_json(os)},
          {"receive_overhead_s", hetperf::to_json(orr)},
          {"gap_s", hetperf::to_json(g_small)},
          {"gap_per_byte_s", big_g},
          {"latency_s", latency}};
}

// The time inside a blocking send of `count` bytes. With `busy_s` 0 its receiver already waits: rank 1
// posts its receive and says so with an empty message. Otherwise rank 1 says it starts with that
// message, spins for `busy_s`, and only then receives. Either way rank 0 times its MPI_Send after the
// empty message and waits for rank 1's acknowledgement of the whole message before the next sample,
// so that no send finds the buffers partly full.
hetperf::SampleSummary measure_send_time(std::vector<char>& buf, int count, int rank,
                                         const hetperf::probes::RepeatOptions& repeat, double busy_s = 0) {
  const int peer = 1 - rank;
  auto one = [&] {
    double d = 0;
    if (rank == 0) {
      MPI_Recv(nullptr, 0, MPI_CHAR, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double t = MPI_Wtime();
      MPI_Send(buf.data(), count, MPI_CHAR, peer, 9, MPI_COMM_WORLD);
      d = MPI_Wtime() - t;
      MPI_Recv(nullptr, 0, MPI_CHAR, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Request request = MPI_REQUEST_NULL;
      if (busy_s == 0) MPI_Irecv(buf.data(), count, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &request);
      MPI_Send(nullptr, 0, MPI_CHAR, peer, 8, MPI_COMM_WORLD);
      if (busy_s > 0) {
        busy_wait(busy_s);
        MPI_Irecv(buf.data(), count, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &request);
      }
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      MPI_Send(nullptr, 0, MPI_CHAR, peer, 10, MPI_COMM_WORLD);
    }
    return d;
  };
  one();  // warm-up, discarded
  if (busy_s == 0) return coordinated(repeat, rank, one);
  hetperf::probes::RepeatOptions few = repeat;  // the median of a few tells the protocols apart
  few.min_samples = 3;
  few.time_cap_s = std::min(repeat.time_cap_s, 10 * busy_s);
  return coordinated(few, rank, one);
}

// The next size to try between the largest size sent eagerly, `eager`, and the first that waited,
// `waited`, or 0 when they are close enough. Powers of two first: a limit is often one, and they
// bracket it to a factor of two in a few tries. Then halfway, to multiples of 64 bytes, until the
// two are 1/16 of `eager` apart. Bracketed to a factor of two and misread, the loopback limit over TCP
// came out as 512 KiB where LU's panels of 576 KiB to 1.25 MiB went out eagerly (3.875 MiB probed
// now): each waited for its receiver's time slice in the model where it went out at once.
std::uint64_t next_eager_probe(std::uint64_t eager, std::uint64_t waited) {
  std::vector<std::uint64_t> inside;  // the powers of two strictly between the two sizes
  for (std::uint64_t p = 1; p < waited; p <<= 1) {
    if (p > eager) inside.push_back(p);
  }
  if (!inside.empty()) return inside[inside.size() / 2];
  constexpr std::uint64_t kGrain = 64;
  if (waited - eager <= std::max<std::uint64_t>(kGrain, eager / 16)) return 0;
  const std::uint64_t mid = (eager + (waited - eager) / 2) / kGrain * kGrain;
  return mid > eager && mid < waited ? mid : 0;
}

// Between the largest size sent eagerly and the first that waited, sizes in bisection
// (next_eager_probe), each with the larger of its neighbours' busy times; the results join `busy` in
// size order. Rank 0 decides and tells rank 1.
void bisect_eager_limit(std::vector<char>& buf, int rank, const hetperf::probes::RepeatOptions& repeat,
                        std::vector<hetperf::BusySend>& busy) {
  for (;;) {
    std::uint64_t mid = 0;
    double busy_s = 0;
    if (rank == 0) {
      for (std::size_t i = 0; i + 1 < busy.size(); ++i) {
        if (!busy[i].eager()) break;
        if (busy[i + 1].eager()) continue;
        mid = next_eager_probe(busy[i].size_bytes, busy[i + 1].size_bytes);
        busy_s = std::max(busy[i].receiver_busy_s, busy[i + 1].receiver_busy_s);
        break;
      }
    }
    MPI_Bcast(&mid, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(&busy_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (mid == 0) return;
    hetperf::BusySend b{mid, busy_s, measure_send_time(buf, static_cast<int>(mid), rank, repeat, busy_s)};
    auto at = std::find_if(busy.begin(), busy.end(), [&](const hetperf::BusySend& x) { return x.size_bytes > mid; });
    busy.insert(at, b);
  }
}

// One size's ping-pong point: the one-way time of batches of round trips (about 1 ms a sample,
// decided by rank 0 and shared), and from `send_times_from` bytes on the time a send takes to a
// waiting receiver. `one_way_s` gets the one-way time's median.
nlohmann::json measure_point(std::vector<char>& buf, std::uint64_t bytes, std::uint64_t send_times_from, int rank,
                             const hetperf::probes::RepeatOptions& repeat, double& one_way_s) {
  const int count = static_cast<int>(bytes);
  round_trips(buf, count, rank, 3);  // warm-up (connection set-up, first-touch of buffers)
  double t0 = MPI_Wtime();
  round_trips(buf, count, rank, 10);  // both ranks take part; rank 0's timing decides
  int batch = batch_for((MPI_Wtime() - t0) / 10);
  MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
  hetperf::SampleSummary s = coordinated(repeat, rank, [&] {
    double t = MPI_Wtime();
    round_trips(buf, count, rank, batch);
    return (MPI_Wtime() - t) / (2.0 * batch);
  });
  one_way_s = s.median;
  nlohmann::json point = {{"size_bytes", bytes}, {"round_trips_per_sample", batch}, {"one_way_s", hetperf::to_json(s)}};
  if (send_times_from > 0 && bytes >= send_times_from) {
    point["send_s"] = hetperf::to_json(measure_send_time(buf, count, rank, repeat));
  }
  return point;
}

// Rounds of the fan-out: rank 0 sends `count` bytes to ranks 1 .. size - 1 in turn, each of which
// receives it; the next round starts as soon as rank 0's last send has returned.
void fanout_rounds(std::vector<char>& buf, int count, int rank, int size, int rounds) {
  for (int k = 0; k < rounds; ++k) {
    if (rank == 0) {
      for (int p = 1; p < size; ++p) MPI_Send(buf.data(), count, MPI_CHAR, p, 7, MPI_COMM_WORLD);
    } else {
      MPI_Recv(buf.data(), count, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
}

// The period of a fan-out round, as a sample summary on rank 0 (each sample the mean over a batch of
// rounds long enough to hide the coordination between samples).
nlohmann::json measure_fanout(std::vector<char>& buf, int count, int rank, int size,
                              const hetperf::probes::RepeatOptions& repeat) {
  fanout_rounds(buf, count, rank, size, 3);  // warm-up (connections, first touch), discarded
  double t0 = MPI_Wtime();
  fanout_rounds(buf, count, rank, size, 5);
  int batch = std::max(10, batch_for((MPI_Wtime() - t0) / 5) / 4);
  MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
  hetperf::SampleSummary s = coordinated(repeat, rank, [&] {
    double t = MPI_Wtime();
    fanout_rounds(buf, count, rank, size, batch);
    return (MPI_Wtime() - t) / batch;
  });
  return {{"ranks", size}, {"bytes", count}, {"rounds_per_sample", batch}, {"period_s", hetperf::to_json(s)}};
}

// hetperf-pingpong's options.
struct PingPongArgs {
  std::vector<std::uint64_t> sizes = {0, 32, 1024, 32768, 1 << 20};
  hetperf::probes::RepeatOptions repeat;
  std::uint64_t loggp_large = 0, fanout = 0, send_times_from = 0, busy_sends_from = 0;
};

// The options (pairs of words) and the checks of them against the ranks; the message of the first
// fault, empty when there is none.
std::string parse_args(int argc, char** argv, int size, PingPongArgs& a) {
  a.repeat.time_cap_s = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sizes"))
      a.sizes = parse_sizes(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--min-samples"))
      a.repeat.min_samples = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--target"))
      a.repeat.target_relative_half_width = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--time-cap"))
      a.repeat.time_cap_s = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--loggp"))
      a.loggp_large = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--fanout"))
      a.fanout = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--send-times"))
      a.send_times_from = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--busy-sends"))
      a.busy_sends_from = std::strtoull(argv[i + 1], nullptr, 10);
    else
      return std::string("unknown option ") + argv[i];
  }
  if (a.fanout > 0 && (size < 2 || a.fanout > (1u << 30))) return "--fanout: expected 1 B to 1 GiB on at least 2 ranks";
  if (size != 2 && a.fanout == 0) return "expected exactly 2 ranks (mpiexec -n 2), got " + std::to_string(size);
  return a.repeat.validate();
}

// The ping-pong's points, one per size (on rank 0), and with --busy-sends the timed sends to a busy
// receiver, in ascending sizes until one waited for its receiver.
nlohmann::json pingpong_points(std::vector<char>& buf, const PingPongArgs& a, int rank,
                               std::vector<hetperf::BusySend>& busy) {
  nlohmann::json points = nlohmann::json::array();
  // Once a size waited for its receiver, the larger ones are not tried: they tell nothing of the limit,
  // and across a 100 Mbit/s link their receivers spun for seconds each (cli: testbed_mpi took 80-97 s
  // where it had taken 49-55).
  int waited = 0;
  for (std::uint64_t bytes : a.sizes) {
    const int count = static_cast<int>(bytes);
    double one_way_s = 0;
    nlohmann::json point = measure_point(buf, bytes, a.send_times_from, rank, a.repeat, one_way_s);
    if (a.busy_sends_from > 0 && bytes >= std::max<std::uint64_t>(1, a.busy_sends_from) && !waited) {
      double busy_s = std::max(1e-3, 8 * one_way_s);
      MPI_Bcast(&busy_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      busy.push_back({bytes, busy_s, measure_send_time(buf, count, rank, a.repeat, busy_s)});
      waited = rank == 0 && !busy.back().eager();
      MPI_Bcast(&waited, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (rank == 0) points.push_back(point);
  }
  return points;
}

// Rank 0's line: the hosts, the MPI library, the points, LogGP and the busy sends.
void print_result(const char (&hosts)[2][MPI_MAX_PROCESSOR_NAME], const nlohmann::json& points,
                  const nlohmann::json& loggp, const std::vector<hetperf::BusySend>& busy) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int vlen = 0;
  MPI_Get_library_version(version, &vlen);
  std::string v(version, static_cast<std::size_t>(vlen));
  if (auto nl = v.find('\n'); nl != std::string::npos) v.resize(nl);
  nlohmann::json out = {{"hosts", {hosts[0], hosts[1]}}, {"mpi_library", v}, {"pingpong", points}};
  if (!loggp.is_null()) out["loggp"] = loggp;
  for (const hetperf::BusySend& b : busy) {
    out["busy_sends"].push_back(
        {{"size_bytes", b.size_bytes}, {"receiver_busy_s", b.receiver_busy_s}, {"send_s", hetperf::to_json(b.send_s)}});
  }
  std::printf("%s\n", out.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  PingPongArgs a;
  if (const std::string error = parse_args(argc, argv, size, a); !error.empty()) {
    if (rank == 0) std::fprintf(stderr, "hetperf-pingpong: %s\n", error.c_str());
    return finalize_together(2);
  }
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  if (a.fanout > 0) {
    std::vector<char> buf(a.fanout, 1);
    const nlohmann::json f = measure_fanout(buf, static_cast<int>(a.fanout), rank, size, a.repeat);
    if (rank == 0) std::printf("%s\n", nlohmann::json{{"hosts", {host}}, {"fanout", f}}.dump().c_str());
    return finalize_together(0);
  }
  char hosts[2][MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::uint64_t max_size = std::max<std::uint64_t>(1, a.loggp_large);
  for (auto s : a.sizes) max_size = std::max<std::uint64_t>(max_size, s);
  std::vector<char> buf(max_size, 1);
  std::vector<hetperf::BusySend> busy;  // ascending sizes; decided on rank 0 (its send_s)
  const nlohmann::json points = pingpong_points(buf, a, rank, busy);
  bisect_eager_limit(buf, rank, a.repeat, busy);
  nlohmann::json loggp;
  if (a.loggp_large > 0) loggp = measure_loggp(buf, rank, a.repeat, 1, a.loggp_large);
  if (rank == 0) print_result(hosts, points, loggp, busy);
  return finalize_together(0);
}
