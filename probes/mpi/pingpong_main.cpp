// hetperf-pingpong: MPI ping-pong between ranks 0 and 1 (the seed's "net", over MPICH).
// Run as `mpiexec -n 2 hetperf-pingpong [--sizes 0,32,1024] [--min-samples 10] [--target 0.02]
// [--time-cap 5]`; rank 0 prints one JSON object on stdout: the hosts and, per message size, the
// one-way time (half a round trip) as a sample summary. A sample is the mean over a batch of round
// trips long enough (>= ~1 ms) for the clock to resolve it.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetperf/probes/repeat.hpp"

namespace {

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

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::uint64_t> sizes = {0, 32, 1024, 32768, 1 << 20};
  hetperf::probes::RepeatOptions repeat;
  repeat.time_cap_s = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sizes")) sizes = parse_sizes(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--min-samples")) repeat.min_samples = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--target")) repeat.target_relative_half_width = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--time-cap")) repeat.time_cap_s = std::atof(argv[i + 1]);
    else {
      if (rank == 0) std::fprintf(stderr, "hetperf-pingpong: unknown option %s\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "hetperf-pingpong: expected exactly 2 ranks (mpiexec -n 2), got %d\n", size);
    MPI_Finalize();
    return 2;
  }
  std::string error = repeat.validate();
  if (!error.empty()) {
    if (rank == 0) std::fprintf(stderr, "hetperf-pingpong: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  char hosts[2][MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);

  std::uint64_t max_size = 1;
  for (auto s : sizes) max_size = std::max<std::uint64_t>(max_size, s);
  std::vector<char> buf(max_size, 1);
  const int peer = 1 - rank;
  nlohmann::json points = nlohmann::json::array();

  for (std::uint64_t bytes : sizes) {
    int count = static_cast<int>(bytes);
    auto round_trips = [&](int n) {
      for (int k = 0; k < n; ++k) {
        if (rank == 0) {
          MPI_Send(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
          MPI_Recv(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        }
      }
    };
    // Batch size: enough round trips for ~1 ms per sample, decided by rank 0 and shared.
    int batch = 1;
    round_trips(3);  // warm-up (connection set-up, first-touch of buffers)
    double t0 = MPI_Wtime();
    round_trips(10);  // both ranks take part; rank 0's timing decides
    double per = (MPI_Wtime() - t0) / 10;
    batch = per > 0 ? std::min(100000, std::max(1, static_cast<int>(1e-3 / per))) : 1000;
    MPI_Bcast(&batch, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      int go = 1;
      hetperf::SampleSummary s = hetperf::probes::repeat_until_precise(repeat, [&] {
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        round_trips(batch);
        return (MPI_Wtime() - t0) / (2.0 * batch);
      });
      go = 0;
      MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
      points.push_back({{"size_bytes", bytes}, {"round_trips_per_sample", batch}, {"one_way_s", hetperf::to_json(s)}});
    } else {
      for (;;) {
        int go = 0;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!go) break;
        round_trips(batch);
      }
    }
  }
  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int vlen = 0;
    MPI_Get_library_version(version, &vlen);
    std::string v(version, static_cast<std::size_t>(vlen));
    if (auto nl = v.find('\n'); nl != std::string::npos) v.resize(nl);
    nlohmann::json out = {{"hosts", {hosts[0], hosts[1]}}, {"mpi_library", v}, {"pingpong", points}};
    std::printf("%s\n", out.dump().c_str());
  }
  MPI_Finalize();
  return 0;
}
