// Tests of calibrate/src/eager_limit.cpp and the profile builder's eager limits: the ping-pong's sends
// to a busy receiver tell eager messages from rendezvous ones.
#include <catch2/catch.hpp>

#include "hetperf/calibrate/eager_limit.hpp"
#include "hetperf/calibrate/local_line.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "synthetic_measurement.hpp"

using namespace hetperf;
using namespace hetperf::calibrate;

namespace {

// A ping-pong whose sends return in `copy_s` up to `limit` bytes and wait for their receiver beyond,
// each receiver busy for 1 ms.
std::vector<BusySend> busy_sends(std::uint64_t limit, std::initializer_list<std::uint64_t> sizes) {
  std::vector<BusySend> out;
  for (std::uint64_t s : sizes) {
    const double t = s <= limit ? 2e-5 : 1.004e-3;
    out.push_back({s, 1e-3, summarize({t, t * 1.01, t * 0.99})});
  }
  return out;
}

}  // namespace

TEST_CASE("calibrate: the eager limit is the largest size sent before its receiver posted") {
  NetMeasurement net;
  net.hosts = {"vm", "vm"};
  CHECK_FALSE(eager_limit_from_pingpong(net, "m.json"));  // no busy sends: not measured
  // MPICH 4.0 over UCX's shared memory on this VM: 8 KiB eager, 16 KiB waited (the probe's bisection).
  net.busy_sends = busy_sends(8192, {32, 1024, 8192, 16384, 32768, 1u << 20});
  auto e = eager_limit_from_pingpong(net, "m.json");
  REQUIRE(e);
  CHECK(e->bytes == 8192);
  CHECK(e->source.find("m.json ($.probes.net.busy_sends, loopback): eager 8192 bytes") == 0);
  CHECK(e->source.find("waited 16384 bytes in 1 ms") != std::string::npos);
  // Every size eager: the largest measured; none: 0.
  net.busy_sends = busy_sends(1u << 30, {1024, 1u << 20});
  CHECK(eager_limit_from_pingpong(net, "m.json")->bytes == 1u << 20);
  net.busy_sends = busy_sends(0, {1024, 1u << 20});
  CHECK(eager_limit_from_pingpong(net, "m.json")->bytes == 0);
  // A send of about half the busy time is not counted eager (a rendezvous whose receiver came early).
  net.busy_sends = {{1024, 1e-3, summarize({2e-5})}, {2048, 1e-3, summarize({0.6e-3})}};
  CHECK(eager_limit_from_pingpong(net, "m.json")->bytes == 1024);
  // Past the first size that waited, nothing counts: the limit is where eager sends end.
  net.busy_sends = busy_sends(8192, {1024, 16384});
  net.busy_sends.push_back({65536, 1e-3, summarize({2e-5})});
  CHECK(eager_limit_from_pingpong(net, "m.json")->bytes == 1024);
}

TEST_CASE("calibrate: the profile's eager limits: between computers from their pair, within one from its loopback") {
  hetperf::testing::SyntheticOptions a;
  a.machine = "a";
  a.hosts = {"a", "b"};
  hetperf::testing::SyntheticOptions b = a;
  b.machine = "b";
  b.hosts = {"b", "a"};
  CalibrationInput in_a{"a.json", "", hetperf::testing::synthetic_measurement(a), "", ""};
  CalibrationInput in_b{"b.json", "", hetperf::testing::synthetic_measurement(b), "", ""};
  in_a.measurement.net->busy_sends = busy_sends(1u << 20, {1024, 1u << 20, 4u << 20});
  in_b.measurement.net->busy_sends = busy_sends(65536, {1024, 65536, 1u << 20});
  Profile p = build_profile({in_a, in_b}, {"test"});
  REQUIRE(p.network.eager_limit);
  CHECK(p.network.eager_limit->bytes == 65536);  // the smaller of the pair's two directions
  CHECK(p.network.eager_limit_bytes() == 65536);
  CHECK_FALSE(p.computers[0].local_eager_limit);

  // One machine: its loopback is both its own and the profile's network.
  hetperf::testing::SyntheticOptions vm;
  vm.machine = "vm";
  vm.hosts = {"vm", "vm"};
  CalibrationInput in_vm{"vm.json", "", hetperf::testing::synthetic_measurement(vm), "", ""};
  CHECK_FALSE(build_profile({in_vm}, {"test"}).network.eager_limit);  // not measured: 64 KiB
  CHECK(build_profile({in_vm}, {"test"}).network.eager_limit_bytes() == 65536);
  in_vm.measurement.net->busy_sends = busy_sends(8192, {1024, 8192, 16384});
  p = build_profile({in_vm}, {"test"});
  REQUIRE(p.computers[0].local_eager_limit);
  CHECK(p.computers[0].local_eager_limit->bytes == 8192);
  CHECK(p.network.eager_limit->bytes == 8192);

  // A one-core computer takes the host's loopback limit with its line, unless it has its own.
  Profile two = build_profile({in_a, in_b}, {"test"});
  for (Computer& c : two.computers) c.cores = 1;
  two.computers[1].local_eager_limit = EagerLimit{4096, "own"};
  MessageModel line;
  line.seconds_per_byte = 1e-10;
  CHECK(use_local_line(two, line, EagerLimit{1u << 20, "host"}) == 2);
  CHECK(two.computers[0].local_eager_limit->bytes == 1u << 20);
  CHECK(two.computers[1].local_eager_limit->bytes == 4096);
}
