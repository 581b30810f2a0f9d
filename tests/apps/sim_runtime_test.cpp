// Tests for apps/sim: the simulated back-end's timing rules on hand-computed cases, and the
// applications running to completion inside it without allocating their data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "hetperf/apps/integrate.hpp"
#include "hetperf/apps/lu.hpp"
#include "hetperf/apps/sim/sim_runtime.hpp"

using namespace hetperf::apps;

namespace {

SimPlatform platform(int computers, int cores, double latency_s, double bandwidth) {
  SimPlatform p;
  for (int i = 0; i < computers; ++i) {
    SimComputer c;
    c.name = "c" + std::to_string(i);
    c.cores = cores;
    c.disk_write_bytes_per_s = 1e6;
    p.computers.push_back(c);
  }
  p.latency_s = latency_s;
  p.bandwidth_bytes_per_s = bandwidth;
  // 1 s per gemm "unit": m*n*k / 1e6 seconds; other kernels alike.
  p.kernel_time = [](const KernelCall& k, std::size_t) {
    return k.kernel == "integrate" ? k.steps * 1e-6 : k.m * 1e-6 * k.n * k.k;
  };
  return p;
}

// The end of the `nth` (from 0) operation `op` of `rank`.
double end_of(const SimRunResult& r, int rank, const std::string& op, int nth = 0) {
  for (const auto& e : r.events) {
    if (e.rank == rank && e.op == op && nth-- == 0) return e.end_s;
  }
  FAIL("no such " << op << " on rank " << rank);
  return 0;
}

// Rank 0 sends rank 1 two 1 MB messages (tags 0 and 1), which rank 1 receives in order.
Task two_messages(Runtime& rt) {
  if (rt.rank() == 0) {
    co_await rt.send(1, 0, nullptr, 1000000);
    co_await rt.send(1, 1, nullptr, 1000000);
  } else {
    co_await rt.recv(0, 0, nullptr, 1000000);
    co_await rt.recv(0, 1, nullptr, 1000000);
  }
}

// Ranks 0 and 1 each send 1 MB to rank 2 and rank 3 respectively.
Task two_pairs(Runtime& rt) {
  if (rt.rank() < 2)
    co_await rt.send(rt.rank() + 2, 0, nullptr, 1000000);
  else
    co_await rt.recv(rt.rank() - 2, 0, nullptr, 1000000);
}

}  // namespace

TEST_CASE("apps: a simulated rendezvous message costs l + s/b for both ends") {
  SimPlatform p = platform(2, 1, 1e-3, 1e6);
  auto r = simulate_app(p, {0, 1}, [](Runtime& rt) -> Task {
    if (rt.rank() == 0)
      co_await rt.send(1, 0, nullptr, 1000000);
    else
      co_await rt.recv(0, 0, nullptr, 1000000);
  });
  CHECK(end_of(r, 0, "send") == Approx(1.001));
  CHECK(end_of(r, 1, "recv") == Approx(1.001));
}

TEST_CASE("apps: a simulated eager message lets the sender go on at once") {
  SimPlatform p = platform(2, 1, 1e-3, 1e6);
  auto r = simulate_app(p, {0, 1}, [](Runtime& rt) -> Task {
    if (rt.rank() == 0)
      co_await rt.send(1, 0, nullptr, 1000);
    else
      co_await rt.recv(0, 0, nullptr, 1000);
  });
  CHECK(end_of(r, 0, "send") == Approx(0.0));
  CHECK(end_of(r, 1, "recv") == Approx(1e-3 + 1e-3));
}

TEST_CASE("apps: the eager limit is the platform's between computers and a computer's own within it") {
  // 1 MB from rank 0 to rank 1, whose receive comes after 2 s of work: eager, the send returns at
  // once; a rendezvous waits for the receive and the transfer (l + s/b = 1.001 s).
  auto late_receive = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      co_await rt.send(1, 0, nullptr, 1000000);
    } else {
      co_await rt.gemm(2000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);  // 2 s
      co_await rt.recv(0, 0, nullptr, 1000000);
    }
  };
  SimPlatform p = platform(2, 2, 1e-3, 1e6);
  CHECK(end_of(simulate_app(p, {0, 1}, late_receive), 0, "send") == Approx(3.001));  // 64 KiB by default
  p.eager_limit_bytes = 1u << 20;
  CHECK(end_of(simulate_app(p, {0, 1}, late_receive), 0, "send") == Approx(0.0));
  // Within one computer, its own limit (TCP over loopback, say) rules, and only there.
  p.eager_limit_bytes = 8192;
  p.computers[0].local_eager_limit_bytes = 1u << 20;
  CHECK(end_of(simulate_app(p, {0, 0}, late_receive), 0, "send") == Approx(0.0));
  CHECK(end_of(simulate_app(p, {0, 1}, late_receive), 0, "send") == Approx(3.001));
  p.computers[0].local_eager_limit_bytes = 1000;
  CHECK(end_of(simulate_app(p, {0, 0}, late_receive), 0, "send") > 2);
}

TEST_CASE("apps: ranks computing on one core share it equally, on two cores they do not") {
  auto app = [](Runtime& rt) -> Task { co_await rt.gemm(100, 100, 100, nullptr, 0, nullptr, 0, nullptr, 0); };
  auto one_core = simulate_app(platform(1, 1, 0, 1e9), {0, 0}, app);
  CHECK(end_of(one_core, 0, "gemm") == Approx(2.0));
  CHECK(end_of(one_core, 1, "gemm") == Approx(2.0));
  auto two_cores = simulate_app(platform(1, 2, 0, 1e9), {0, 0}, app);
  CHECK(two_cores.makespan_s == Approx(1.0));
}

TEST_CASE("apps: concurrent transfers out of one computer share its bandwidth equally") {
  // Ranks 0 and 1 on computer 0 send 1 MB each to ranks 2 and 3 on computers 1 and 2.
  auto r = simulate_app(platform(3, 2, 0, 1e6), {0, 0, 1, 2}, two_pairs);
  CHECK(end_of(r, 2, "recv") == Approx(2.0));
  CHECK(end_of(r, 3, "recv") == Approx(2.0));
}

TEST_CASE("apps: messages of one pair of ranks follow each other on the link, other pairs share it") {
  // Two eager 1 MB messages from rank 0 to rank 1 at 1 MB/s: one connection carries them in order, the
  // first arrives at 1 s and the second at 2 s (shared, both would arrive at 2 s; LU's last panel,
  // sent just before the gather's blocks, crossed the testbed's link in its own time).
  SimPlatform p = platform(2, 1, 0, 1e6);
  p.eager_limit_bytes = 2000000;
  auto r = simulate_app(p, {0, 1}, two_messages);
  CHECK(end_of(r, 0, "send", 1) == Approx(0.0));
  CHECK(end_of(r, 1, "recv", 0) == Approx(1.0));
  CHECK(end_of(r, 1, "recv", 1) == Approx(2.0));
  // Ranks 0 and 1 of one computer each send 1 MB to ranks 2 and 3 of the other: two connections, equal
  // shares of the link, both arrive at 2 s.
  r = simulate_app(p, {0, 0, 1, 1}, two_pairs);
  CHECK(end_of(r, 2, "recv") == Approx(2.0));
  CHECK(end_of(r, 3, "recv") == Approx(2.0));
}

TEST_CASE("apps: a simulated non-blocking send returns at once and its wait ends with the transfer") {
  // 1 MB at 1 MB/s with 1 ms latency: the isend returns at 0, the sender computes 0.5 s meanwhile
  // while the data moves (the receiver copies it: MPICH over UCX shared memory needs no progress from
  // the sender), and its wait ends when the receiver has the data, at 1.001 s.
  SimPlatform p = platform(2, 1, 1e-3, 1e6);
  auto r = simulate_app(p, {0, 1}, [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      int h = -1;
      co_await rt.isend(1, 0, nullptr, 1000000, &h);
      co_await rt.gemm(500, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);
      co_await rt.wait(h);
    } else {
      co_await rt.recv(0, 0, nullptr, 1000000);
    }
  });
  CHECK(end_of(r, 0, "isend") == Approx(0.0));
  CHECK(end_of(r, 0, "gemm") == Approx(0.5));
  CHECK(end_of(r, 0, "wait") == Approx(1.001));
  CHECK(end_of(r, 1, "recv") == Approx(1.001));
}

TEST_CASE("apps: applications simulated together share the computers, each with its own ranks") {
  // Two one-rank applications on one single-core computer, the second starting at 0.5 s: the first
  // computes alone for 0.5 s, then both share the core.
  SimPlatform p = platform(1, 1, 0, 1e9);
  auto body = [](Runtime& rt) -> Task {
    CHECK(rt.rank() == 0);
    CHECK(rt.size() == 1);
    co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);  // 1 s alone
  };
  auto r = simulate_apps(p, {SimApp{"a", {0}, 0, body}, SimApp{"b", {0}, 0.5, body}});
  REQUIRE(r.apps.size() == 2);
  CHECK(r.apps[0].end_s == Approx(1.5));  // 0.5 s alone, then 0.5 s of work at half speed
  CHECK(r.apps[1].end_s == Approx(2.0));
}

TEST_CASE("apps: without kept events a simulation still summarises every iteration") {
  LuConfig cfg;
  cfg.n = 960, cfg.r = 96;
  LuResult result;
  SimApp app{"lu", {0, 1, 2}, 0, [&](Runtime& rt) { return lu_rank(rt, cfg, result); }};
  auto kept = simulate_apps(platform(3, 1, 1e-5, 1e8), {app}, SimOptions{true});
  auto summarised = simulate_apps(platform(3, 1, 1e-5, 1e8), {app}, SimOptions{false});
  CHECK(summarised.apps[0].events.empty());
  auto from_events = summarize_iterations(kept.apps[0].events, 3);
  REQUIRE(summarised.apps[0].iterations.size() == from_events.size());
  for (std::size_t k = 0; k < from_events.size(); ++k) {
    CHECK(summarised.apps[0].iterations[k].efficiency() == Approx(from_events[k].efficiency()));
  }
  CHECK(summarised.makespan_s == kept.makespan_s);
}

TEST_CASE("apps: simulated LU runs every variant to completion with the same kernel calls") {
  std::map<std::string, std::map<std::string, int>> counts;
  for (auto [name, variant, ranks, remove, expand] :
       {std::tuple{"basic", LuVariant::kBasic, 3, 0, 0}, std::tuple{"pipelined", LuVariant::kPipelined, 3, 0, 0},
        std::tuple{"flow_control", LuVariant::kFlowControl, 3, 0, 0}, std::tuple{"removal", LuVariant::kBasic, 3, 1, 0},
        std::tuple{"expansion", LuVariant::kPipelined, 3, 1, 1}}) {
    LuConfig cfg;
    cfg.n = 2592, cfg.r = 216, cfg.variant = variant, cfg.remove = remove, cfg.remove_after_iteration = remove ? 4 : -1;
    cfg.expand = expand, cfg.expand_after_iteration = expand ? 1 : -1;
    LuResult result;
    std::vector<std::size_t> mapping(ranks);
    for (int i = 0; i < ranks; ++i) mapping[i] = i;
    auto r =
        simulate_app(platform(ranks, 1, 50e-6, 1e8), mapping, [&](Runtime& rt) { return lu_rank(rt, cfg, result); });
    CHECK(r.makespan_s > 0);
    CHECK(result.factors.empty());  // NOALLOC: no matrix memory in the simulated back-end
    for (const auto& e : r.events) counts[name][e.op]++;
  }
  for (const char* op : {"getrf", "trsm", "gemm"}) {
    CHECK(counts["basic"][op] == counts["pipelined"][op]);
    CHECK(counts["basic"][op] == counts["flow_control"][op]);
    CHECK(counts["basic"][op] == counts["removal"][op]);
    CHECK(counts["basic"][op] == counts["expansion"][op]);
  }
  CHECK(counts["basic"]["getrf"] == 12);
  CHECK(counts["flow_control"]["isend"] == counts["flow_control"]["wait"]);
  CHECK(counts["flow_control"]["isend"] == 2 * 12);  // every panel to the two other ranks
}

TEST_CASE("apps: simulated integration charges each worker its steps and disk writes") {
  IntegrateConfig cfg;
  cfg.steps = 2000000, cfg.disk_bytes = 1000000;
  IntegrateResult result;
  auto r =
      simulate_app(platform(2, 1, 0, 1e9), {0, 1, 1}, [&](Runtime& rt) { return integrate_rank(rt, cfg, result); });
  // Two workers share computer 1: 2 s of steps each take 4 s; then their disk writes queue (1 s each).
  CHECK(result.response_s == Approx(6.0).epsilon(1e-6));
}

TEST_CASE("apps: simulated disk writes go through the disk in turn, then flush side by side") {
  IntegrateConfig cfg;
  cfg.steps = 2000000, cfg.disk_bytes = 1000000;
  IntegrateResult result;
  SimPlatform p = platform(2, 1, 0, 1e9);
  p.computers[1].disk_sync_latency_s = 0.5;
  auto r = simulate_app(p, {0, 1, 1}, [&](Runtime& rt) { return integrate_rank(rt, cfg, result); });
  // Both workers end their steps at 4 s; their bytes take 1 s each in turn (to 5 and 6 s), and each
  // write's flush 0.5 s after its bytes, the first one's while the second's bytes go through.
  CHECK(end_of(r, 1, "disk_write") + end_of(r, 2, "disk_write") == Approx(5.5 + 6.5).epsilon(1e-6));
  CHECK(std::max(end_of(r, 1, "disk_write"), end_of(r, 2, "disk_write")) == Approx(6.5).epsilon(1e-6));
  CHECK(result.response_s == Approx(6.5).epsilon(1e-6));
}

TEST_CASE("apps: a waiting rank takes its share of a core, also once done until its launch group is") {
  // One core; rank 0 computes 1 s, rank 1 waits for its message. Waiting costs half a core: rank 0
  // runs at 1 / 1.5 of the core, so it ends at 1.5 s.
  SimPlatform p = platform(1, 1, 0, 1e9);
  p.computers[0].wait_cpu_share = 0.5;
  auto r = simulate_app(p, {0, 0}, [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);
      co_await rt.send(1, 0, nullptr, 0);
    } else {
      co_await rt.recv(0, 0, nullptr, 0);
    }
  });
  CHECK(end_of(r, 0, "gemm") == Approx(1.5));
  // Two one-rank apps of one launch group: the first is done at once and keeps polling, so the second
  // computes at 1 / 1.5 of the core throughout.
  auto idle = [](Runtime&) -> Task { co_return; };
  auto work = [](Runtime& rt) -> Task { co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0); };
  SimApp a{"a", {0}, 0, idle}, b{"b", {0}, 0, work};
  a.launch_group = b.launch_group = 7;
  CHECK(simulate_apps(p, {a, b}).apps[1].end_s == Approx(1.5));
  a.launch_group = -1;  // on its own, a finished rank leaves
  CHECK(simulate_apps(p, {a, b}).apps[1].end_s == Approx(1.0));
}

TEST_CASE("apps: a transfer streaming into or out of a computer takes its share of the computer's capacity") {
  // One core each. On c0 rank 0 computes 1 s while rank 2 waits (for free) for the 0.4 MB that rank 1
  // on c1 sends at 1 MB/s, no latency. Each transfer into c0 takes per_receive 0.5 of its capacity, as
  // the DPS model says: rank 0 computes at half speed for the 0.4 s of the transfer and ends at 1.2 s.
  // Out of c1 per_send 0.25: the sender's computing after its transfer is done is not slowed.
  SimPlatform p = platform(2, 1, 0, 1e6);
  p.computers[0].cpu_share_per_receive = 0.5;
  p.computers[1].cpu_share_per_send = 0.25;
  auto program = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);
    if (rt.rank() == 1) {
      co_await rt.send(2, 0, nullptr, 400000);
      co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);
    }
    if (rt.rank() == 2) co_await rt.recv(1, 0, nullptr, 400000);
  };
  auto r = simulate_app(p, {0, 1, 0}, program);
  CHECK(end_of(r, 0, "gemm") == Approx(1.2));
  CHECK(end_of(r, 2, "recv") == Approx(0.4));
  CHECK(end_of(r, 1, "gemm") == Approx(1.4));
  // Free communication (the default): rank 0 ends at 1 s.
  p.computers[0].cpu_share_per_receive = 0;
  CHECK(end_of(simulate_app(p, {0, 1, 0}, program), 0, "gemm") == Approx(1.0));
}

TEST_CASE("apps: a laswp or getrf after its rank waited pays for its block's re-touched pages at that age") {
  // Rank 1 on c1 waits 1 s for rank 0's message, then in its next iteration swaps rows of a block of
  // 1024 rows x 4 columns (4 x 2 pages) and factors a 1024 x 4 panel: each pays 8 pages at the 1 s
  // its data rested, 1e-3 s a page, on top of its kernel time (m n k / 1e6 s; 0 for the getrf, whose
  // k is 0). Its trsm pays nothing.
  SimPlatform p = platform(2, 1, 0, 1e9);
  p.computers[1].page_retouch = hetperf::PageRetouch{{0, 2}, {0, 2e-3}};
  auto program = [](Runtime& rt) -> Task {
    rt.set_iteration(0);
    if (rt.rank() == 0) {
      co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);
      co_await rt.send(1, 0, nullptr, 0);
    } else {
      co_await rt.recv(0, 0, nullptr, 0);
    }
    rt.set_iteration(1);
    if (rt.rank() == 1) {
      co_await rt.laswp(4, nullptr, 1024, 1, 4, nullptr, 1024);
      co_await rt.getrf(1024, 4, nullptr, 1024, nullptr);
      co_await rt.trsm(4, 4, nullptr, 4, nullptr, 1024);
    }
  };
  auto r = simulate_app(p, {0, 1}, program);
  const auto duration = [&](const std::string& op) {
    for (const auto& e : r.events) {
      if (e.rank == 1 && e.op == op) return e.end_s - e.start_s;
    }
    return -1.0;
  };
  CHECK(end_of(r, 1, "recv") == Approx(1.0));
  CHECK(duration("laswp") == Approx(1024 * 4 * 4 * 1e-6 + 8e-3));
  CHECK(duration("getrf") == Approx(8e-3));
  CHECK(duration("trsm") == Approx(0).margin(1e-12));
  // Both ranks on c1's one core with a 4 ms slice take turns of it: off its core a rank does not spin,
  // and the probe's curve, measured spinning, is not charged.
  p.computers[1].time_slice_s = 0.004;
  r = simulate_app(p, {1, 1}, program);
  CHECK(duration("getrf") == Approx(0).margin(1e-12));
}

TEST_CASE("apps: kernels on all cores at once run at the core efficiency, the integration loop does not") {
  SimPlatform p = platform(1, 2, 0, 1e9);
  p.computers[0].core_efficiency = 0.8;
  auto gemm = [](Runtime& rt) -> Task { co_await rt.gemm(1000, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0); };
  CHECK(simulate_app(p, {0}, gemm).makespan_s == Approx(1.0));      // alone: full speed
  CHECK(simulate_app(p, {0, 0}, gemm).makespan_s == Approx(1.25));  // both cores: 0.8 each
  auto loop = [](Runtime& rt) -> Task { co_await rt.integrate(0, 1, 1000000, nullptr); };
  CHECK(simulate_app(p, {0, 0}, loop).makespan_s == Approx(1.0));
}

TEST_CASE(
    "apps: a rank blocked in MPI on an oversubscribed computer is scheduled in after the hand-off, one computing is "
    "not") {
  SimPlatform p = platform(2, 1, 1e-3, 1e9);
  p.computers[1].oversubscribed_handoff_s = 5e-3;
  auto ping = [](Runtime& rt) -> Task {
    if (rt.rank() == 0)
      co_await rt.send(1, 0, nullptr, 0);
    else if (rt.rank() == 1)
      co_await rt.recv(0, 0, nullptr, 0);
  };
  CHECK(end_of(simulate_app(p, {0, 1}, ping), 1, "recv") == Approx(1e-3));     // 1 rank on 1 core
  CHECK(end_of(simulate_app(p, {0, 1, 1}, ping), 1, "recv") == Approx(6e-3));  // 2 ranks on 1 core
  CHECK(end_of(simulate_app(p, {0, 1, 1, 1, 1}, ping), 1, "recv") == Approx(1e-3 + 2 * 5e-3 * 0.75));  // 4 on 1
  // A receiver still computing when its message arrives finds it on its receive: no hand-off.
  auto late = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) co_await rt.send(1, 0, nullptr, 0);
    if (rt.rank() != 1) co_return;
    co_await rt.gemm(1000, 10, 1, nullptr, 0, nullptr, 0, nullptr, 0);  // 10 ms alone
    co_await rt.recv(0, 0, nullptr, 0);
  };
  CHECK(end_of(simulate_app(p, {0, 1, 1}, late), 1, "recv") == Approx(0.01));
  // A disk write blocks its rank in the kernel alike: 1 ms of bytes, 2 ms of flush, then the hand-off.
  p.computers[1].disk_write_bytes_per_s = 1e6;
  p.computers[1].disk_sync_latency_s = 2e-3;
  auto write = [](Runtime& rt) -> Task {
    if (rt.rank() == 1) co_await rt.disk_write(1000);
  };
  CHECK(end_of(simulate_app(p, {0, 1}, write), 1, "disk_write") == Approx(3e-3));
  CHECK(end_of(simulate_app(p, {0, 1, 1}, write), 1, "disk_write") == Approx(8e-3));
  // While off its core the receiver takes no share of it: rank 2 computes 10 ms beside rank 1, which
  // polls (a full core share) until its message arrives at 1 ms and is then off its core for 5 ms.
  p.computers[1].wait_cpu_share = 1;
  auto beside = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) co_await rt.send(1, 0, nullptr, 0);
    if (rt.rank() == 1) co_await rt.recv(0, 0, nullptr, 0);
    if (rt.rank() == 2) co_await rt.gemm(1000, 10, 1, nullptr, 0, nullptr, 0, nullptr, 0);
  };
  // Rank 2: half a core for 1 ms (0.5 ms of its work), all of it for 5 ms (5 ms of work), then half
  // again (rank 1 is done, polling until its launch group is) for the last 4.5 ms of work: 1 + 5 + 9
  // = 15 ms. Had rank 1 polled through its hand-off, 20 ms.
  CHECK(end_of(simulate_app(p, {0, 1, 1}, beside), 2, "gemm") == Approx(0.015));
  // The other end of a rendezvous too: a blocking send of 1 MB (beyond the eager limit) from the
  // oversubscribed computer returns its hand-off after its transfer (l + s/b = 2 ms); the receiver,
  // alone on its computer, ends with the transfer.
  auto large = [](Runtime& rt) -> Task {
    if (rt.rank() == 1) co_await rt.send(0, 0, nullptr, 1000000);
    if (rt.rank() == 0) co_await rt.recv(1, 0, nullptr, 1000000);
  };
  const auto r = simulate_app(p, {0, 1, 1}, large);
  CHECK(end_of(r, 0, "recv") == Approx(2e-3));
  CHECK(end_of(r, 1, "send") == Approx(2e-3 + 5e-3));
}

TEST_CASE(
    "apps: a rank scheduled in after its hand-off keeps its core for the rest of its slice, and a rendezvous waits for "
    "both ends") {
  // Two ranks on one core (hand-off 5 ms) receive twice from a rank elsewhere, 1 ms per message; rank
  // 0 sends the second message `gap` after the first is received.
  SimPlatform p = platform(2, 1, 1e-3, 1e9);
  p.computers[1].oversubscribed_handoff_s = 5e-3;
  auto twice = [](double gap) {
    return [gap](Runtime& rt) -> Task {
      if (rt.rank() == 0) {
        co_await rt.send(1, 0, nullptr, 0);
        co_await rt.recv(1, 1, nullptr, 0);
        co_await rt.integrate(0, 1, static_cast<std::uint64_t>(std::llround(gap * 1e6)), nullptr);  // 1 µs a step
        co_await rt.send(1, 2, nullptr, 0);
      } else if (rt.rank() == 1) {
        co_await rt.recv(0, 0, nullptr, 0);
        co_await rt.send(0, 1, nullptr, 0);
        co_await rt.recv(0, 2, nullptr, 0);
      }
    };
  };
  // The first receive ends at 1 + 5 ms (scheduled in at 6 ms); its reply reaches rank 0 at 7 ms; the
  // second message arrives at 8 ms + gap, 2 ms + gap after rank 1 was scheduled in.
  auto second = [&](double gap) { return end_of(simulate_app(p, {0, 1, 1}, twice(gap)), 1, "recv", 1); };
  CHECK(second(0) == Approx(8e-3 + 5e-3));  // no slice known: the full hand-off every time
  p.computers[1].handoff_slice_s = 4e-3;
  CHECK(second(0) == Approx(8e-3 + 5e-3 * 2.0 / 4));  // half its slice gone: half the hand-off
  CHECK(second(1e-3) == Approx(9e-3 + 5e-3 * 3.0 / 4));
  CHECK(second(10e-3) == Approx(18e-3 + 5e-3));  // beyond its slice: the full hand-off
  CHECK(end_of(simulate_app(p, {0, 1, 1}, twice(0)), 1, "recv", 0) == Approx(6e-3));  // the first: in full
  // A rendezvous send (1 MB: 1 ms + 1 ms of bytes) returns once its receiver has answered and its
  // sender is back on its core: the longer of the two ends' hand-offs. Into the oversubscribed
  // computer, from a sender alone on its own: the receiver's, in full.
  auto large = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) co_await rt.send(1, 0, nullptr, 1000000);
    if (rt.rank() == 1) co_await rt.recv(0, 0, nullptr, 1000000);
  };
  CHECK(end_of(simulate_app(p, {0, 1, 1}, large), 0, "send") == Approx(2e-3 + 5e-3));
  // Out of it, right after its sender was scheduled in at 6 ms: its own, 2 ms into its slice.
  auto reply = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      co_await rt.send(1, 0, nullptr, 0);
      co_await rt.recv(1, 1, nullptr, 1000000);
    } else if (rt.rank() == 1) {
      co_await rt.recv(0, 0, nullptr, 0);
      co_await rt.send(0, 1, nullptr, 1000000);
    }
  };
  CHECK(end_of(simulate_app(p, {0, 1, 1}, reply), 1, "send") == Approx(8e-3 + 5e-3 * 2.0 / 4));
}

TEST_CASE("apps: a simulated LU expansion moves the blocks whose block-cyclic owner changes") {
  // 12 blocks from 2 ranks (j mod 2) to 3 (j mod 3): blocks 2-5 and 8-11 move.
  LuConfig cfg;
  cfg.n = 2592, cfg.r = 216, cfg.expand = 1, cfg.expand_after_iteration = 1;
  LuResult result;
  auto r = simulate_app(platform(3, 1, 50e-6, 1e8), {0, 1, 2}, [&](Runtime& rt) { return lu_rank(rt, cfg, result); });
  auto rs = lu_redistributions(r.events, cfg, 3);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].after_iteration == 1);
  CHECK(rs[0].bytes == 8ull * 2592 * 216 * 8);
  CHECK(rs[0].ranks == 3);
  CHECK(rs[0].time_s() > 0);
  CHECK(lu_ranks_in_iteration(cfg, 3, 1) == 2);
  CHECK(lu_ranks_in_iteration(cfg, 3, 2) == 3);
}

TEST_CASE("apps: a message within an oversubscribed computer takes its calibrated local line, then the hand-off") {
  SimPlatform p = platform(1, 1, 1e-3, 1e9);
  p.computers[0].oversubscribed_handoff_s = 5e-3;
  p.computers[0].local_message_s = [](std::uint64_t, int ranks) { return ranks * 1e-3; };
  auto ping = [](Runtime& rt) -> Task {
    if (rt.rank() == 0)
      co_await rt.send(1, 0, nullptr, 0);
    else
      co_await rt.recv(0, 0, nullptr, 0);
  };
  CHECK(end_of(simulate_app(p, {0, 0}, ping), 1, "recv") == Approx(2e-3 + 5e-3));
}

TEST_CASE("apps: a simulated message takes the line of its size's regime, shared on the links like any other") {
  SimPlatform p = platform(2, 1, 1e-3, 1e6);
  // Small messages: 1 ms + 1 µs/byte; from 1000 bytes: 2 ms + 2 µs/byte; from 10^5: −1 ms + 3 µs/byte.
  p.regimes = {{0, 1e-3, 1e-6}, {1000, 2e-3, 2e-6}, {100000, -1e-3, 3e-6}};
  auto message = [](std::uint64_t bytes) {
    return [bytes](Runtime& rt) -> Task {
      if (rt.rank() == 0)
        co_await rt.send(1, 0, nullptr, bytes);
      else
        co_await rt.recv(0, 0, nullptr, bytes);
    };
  };
  CHECK(end_of(simulate_app(p, {0, 1}, message(500)), 1, "recv") == Approx(1e-3 + 500e-6));
  CHECK(end_of(simulate_app(p, {0, 1}, message(2000)), 1, "recv") == Approx(2e-3 + 4000e-6));
  CHECK(end_of(simulate_app(p, {0, 1}, message(200000)), 1, "recv") == Approx(-1e-3 + 0.6));
  // Two at once out of one computer share its link: each streams at half the rate its regime gives.
  auto two = [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      co_await rt.send(1, 0, nullptr, 2000);
    } else if (rt.rank() == 2) {
      co_await rt.send(3, 0, nullptr, 2000);
    } else {
      co_await rt.recv(rt.rank() - 1, 0, nullptr, 2000);
    }
  };
  CHECK(end_of(simulate_app(p, {0, 1, 0, 1}, two), 1, "recv") == Approx(2e-3 + 2 * 4000e-6));
  // An absurd regime (1e300 s per byte) ends, late: its stream is saturated, not infinite.
  p.regimes = {{0, 1e-3, 1e300}};
  const double late = end_of(simulate_app(p, {0, 1, 0, 1}, two), 1, "recv");
  CHECK(std::isfinite(late));
  CHECK(late > 1e200);
}

TEST_CASE("apps: a large send returns once all but the send buffer has been streamed") {
  // 1 MB at 1 MB/s with 1 ms latency and a 0.4 MB send buffer: the sender goes on after 1 ms + 0.6 s,
  // the receiver has the message after 1 ms + 1 s, as without the buffer.
  SimPlatform p = platform(2, 1, 1e-3, 1e6);
  p.send_buffer_bytes = 400000;
  auto one = [](Runtime& rt) -> Task {
    if (rt.rank() == 0)
      co_await rt.send(1, 0, nullptr, 1000000);
    else
      co_await rt.recv(0, 0, nullptr, 1000000);
  };
  auto r = simulate_app(p, {0, 1}, one);
  CHECK(end_of(r, 0, "send") == Approx(0.601));
  CHECK(end_of(r, 1, "recv") == Approx(1.001));
  // A message the buffers hold whole: the send returns as the transfer starts.
  p.send_buffer_bytes = 2e6;
  r = simulate_app(p, {0, 1}, one);
  CHECK(end_of(r, 0, "send") == Approx(0.0));
  CHECK(end_of(r, 1, "recv") == Approx(1.001));
  // The receiver comes late (a 0.5 s gemm first): rendezvous, the transfer starts when it posts.
  p.send_buffer_bytes = 400000;
  r = simulate_app(p, {0, 1}, [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      co_await rt.send(1, 0, nullptr, 1000000);
    } else {
      co_await rt.gemm(500, 1000, 1, nullptr, 0, nullptr, 0, nullptr, 0);
      co_await rt.recv(0, 0, nullptr, 1000000);
    }
  });
  CHECK(end_of(r, 0, "send") == Approx(0.5 + 0.601));
  CHECK(end_of(r, 1, "recv") == Approx(0.5 + 1.001));
  // Between ranks of one computer with a local model the buffer plays no part.
  p.computers[0].local_message_s = [](std::uint64_t bytes, int) { return bytes * 1e-7; };
  r = simulate_app(p, {0, 0}, one);
  CHECK(end_of(r, 0, "send") == Approx(0.1));
}

TEST_CASE("apps: back-to-back large sends find the send buffer full and take the whole line each") {
  // Two 1 MB sends at 1 MB/s, 0.4 MB buffer, no latency. The first returns at 0.6 s and arrives at
  // 1.0 s; the second waits for its receive, posted then (rendezvous), and returns at 1.6 s: once
  // the buffer is full a send takes s/b, as the gather's back-to-back blocks did on the testbed.
  SimPlatform p = platform(2, 1, 0, 1e6);
  p.send_buffer_bytes = 400000;
  auto r = simulate_app(p, {0, 1}, two_messages);
  std::vector<double> sends, recvs;
  for (const auto& e : r.events) {
    if (e.op == "send") sends.push_back(e.end_s);
    if (e.op == "recv") recvs.push_back(e.end_s);
  }
  REQUIRE(sends.size() == 2);
  REQUIRE(recvs.size() == 2);
  std::sort(sends.begin(), sends.end());
  std::sort(recvs.begin(), recvs.end());
  CHECK(sends[0] == Approx(0.6));
  CHECK(sends[1] == Approx(1.6));
  CHECK(recvs[0] == Approx(1.0));
  CHECK(recvs[1] == Approx(2.0));
  // A panel to two waiting ranks on two other computers: the second send's sender part shares the
  // link with the first's buffered 0.4 MB (half rate each until 1.4 s), ends at 1.6 s; the second
  // message arrives at 2.0 s.
  SimPlatform three = platform(3, 1, 0, 1e6);
  three.send_buffer_bytes = 400000;
  r = simulate_app(three, {0, 1, 2}, [](Runtime& rt) -> Task {
    if (rt.rank() == 0) {
      co_await rt.send(1, 0, nullptr, 1000000);
      co_await rt.send(2, 0, nullptr, 1000000);
    } else {
      co_await rt.recv(0, 0, nullptr, 1000000);
    }
  });
  double last_send = 0;
  for (const auto& e : r.events) {
    if (e.rank == 0 && e.op == "send") last_send = std::max(last_send, e.end_s);
  }
  CHECK(last_send == Approx(1.6));
  CHECK(end_of(r, 1, "recv") == Approx(1.4));
  CHECK(end_of(r, 2, "recv") == Approx(2.0));
}
