// TCP ping-pong over loopback against serve_tcp in a thread; MPI is tested under mpiexec by ctest
// (tests/probes/mpi_pingpong.sh).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <thread>

#include "hetperf/model/error.hpp"
#include "hetperf/probes/net_probe.hpp"
#include "hetperf/probes/tcp_probe.hpp"

using namespace hetperf;
using namespace hetperf::probes;

TEST_CASE("probes: TCP ping-pong against the echo server gives one point per size", "[net]") {
  const auto port = static_cast<std::uint16_t>(20000 + ::getpid() % 20000);
  std::thread server([port] { serve_tcp(port, "127.0.0.1", true, [](const std::string&) {}); });
  TcpProbeOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.sizes_bytes = {0, 1024, 1u << 20};
  o.repeat.min_samples = 3;
  o.repeat.time_cap_s = 0.3;
  NetMeasurement m = probe_tcp(o);
  server.join();
  CHECK(m.transport == "tcp");
  REQUIRE(m.pingpong.size() == 3);
  CHECK(m.pingpong[0].one_way_s.mean > 0);
  CHECK(m.pingpong[2].one_way_s.mean > m.pingpong[0].one_way_s.mean);
  REQUIRE(m.bandwidth_bytes_per_s);
  CHECK(*m.bandwidth_bytes_per_s == Approx((1u << 20) / m.pingpong[2].one_way_s.mean));
}

TEST_CASE("probes: HOST:PORT parsing names the option on errors", "[net]") {
  TcpProbeOptions o;
  parse_host_port("10.250.0.1:5000", "--connect", o);
  CHECK(o.host == "10.250.0.1");
  CHECK(o.port == 5000);
  CHECK_THROWS_WITH(parse_host_port("nohost", "--connect", o), Catch::Contains("--connect"));
  CHECK_THROWS_AS(parse_host_port("h:70000", "--connect", o), InputError);
}

TEST_CASE("probes: default ping-pong sizes run from 0 B to 16 MiB", "[net]") {
  auto s = NetProbeOptions::default_sizes(16u << 20);
  CHECK(s.front() == 0);
  CHECK(s[1] == 1);
  CHECK(s.back() == (16u << 20));
  CHECK(s.size() == 26);
}

TEST_CASE("probes: a missing MPI launcher is an environment problem, not a crash", "[net]") {
  NetProbeOptions o;
  o.mpiexec = "/nonexistent/mpiexec";
  o.pingpong_program = "/bin/true";
  CHECK_THROWS_AS(probe_net(o), EnvironmentError);
}
