// Tests of the UniMPP simulation (simulator/src/unimpp_simulation.cpp) against hand-computed cases:
// each equation of UniMPP paper section 2, processor sharing, FIFO disks, the star network of DPS paper
// section 4 with its CPU cost, migration (eq. 9), arrivals and determinism.
#include <catch2/catch.hpp>

#include "hetperf/model/unimpp.hpp"
#include "simulator/simulation_fixtures.hpp"

using namespace hetperf;
using nlohmann::json;
using test::computer;

namespace {

json worker(const std::string& name, double mi, int count = 1) {
  return {{"name", name}, {"count", count}, {"mi", mi}, {"computer", "A"}};
}

}  // namespace

TEST_CASE("simulator: one process alone follows eq. 2-8 term by term") {
  json a = computer("A");
  a["slowdown"] = {{"main", {{"kind", "linear"}, {"a_per_mb", 0.001}, {"b", 0}}}};
  Profile profile = test::profile(json::array({a}), 1e6);
  json p = {{"name", "p"},
            {"mi", 2000},
            {"static_memory_mb", 60},
            {"dynamic_memory_mb", 40},
            {"disk_read", {{"ops", 2}, {"bytes_per_op", 10e6}}},
            {"disk_write", {{"ops", 1}, {"bytes_per_op", 5e6}}},
            {"messages", {{"count", 2}, {"bytes", 1000}}},
            {"sleep_s", 0.5}};
  Prediction out = test::run(profile, test::workload(json::array({p})));
  const ProcessResult& r = out.processes.at(0);

  double te = unimpp::te(2000, 1000);         // eq. 2: 2 s
  double tem = unimpp::tem(te, 0.001 * 100);  // eq. 3: α(100 MB) = 0.1
  std::vector<unimpp::DiskAccess> reads(2, {10e6, 0}), writes(1, {5e6, 0});
  double sldr = unimpp::disk_delay(reads, 100e6);         // eq. 4: 0.2 s
  double sldw = unimpp::disk_delay(writes, 50e6);         // eq. 5: 0.1 s
  double theta = unimpp::message_time(0.001, 1000, 1e6);  // eq. 7 + s/b: 2 ms
  std::vector<unimpp::MessageCost> messages(2, {theta, 0});
  double sln = unimpp::network_delay(messages);                  // eq. 6
  double sl = unimpp::response_time(tem, sldr, sldw, sln, 0.5);  // eq. 8

  CHECK(te == Approx(2.0));
  CHECK(tem == Approx(2.2));
  CHECK(sldr == Approx(0.2));
  CHECK(sldw == Approx(0.1));
  CHECK(sln == Approx(0.004));
  CHECK(sl == Approx(3.004));
  CHECK(r.response_s == Approx(sl).epsilon(1e-12));
  CHECK(r.breakdown.cpu_s == Approx(2.0));
  CHECK(r.breakdown.memory_s == Approx(0.2));
  CHECK(r.breakdown.disk_s == Approx(0.3));
  CHECK(r.breakdown.network_s == Approx(0.004));
  CHECK(r.breakdown.sleep_s == Approx(0.5));
  CHECK(r.breakdown.waiting_s == Approx(0).margin(1e-9));
}

TEST_CASE("simulator: memory slowdown switches from the linear to the exponential part beyond main memory") {
  json a = computer("A");
  a["main_memory_mb"] = 100;
  a["virtual_memory_mb"] = 100;
  a["slowdown"] = {{"main", {{"kind", "linear"}, {"a_per_mb", 0.001}, {"b", 0}}},
                   {"virtual", {{"kind", "exponential"}, {"c", 0.05}, {"d_per_mb", 0.01}}}};
  Profile profile = test::profile(json::array({a}));
  json p = {{"name", "p"}, {"mi", 1000}, {"static_memory_mb", 150}};
  // A copy: a reference into the temporary prediction's processes would dangle (AddressSanitizer
  // caught it).
  const ProcessResult r = test::run(profile, test::workload(json::array({p}))).processes.at(0);
  double alpha = 0.05 * std::exp(0.01 * 150);  // 0.224
  CHECK(r.response_s == Approx(1.0 * (1 + alpha)));
  CHECK(r.breakdown.memory_s == Approx(alpha));
}

TEST_CASE("simulator: n equal processes started together on one single-core computer all finish at n times TE") {
  Profile profile = test::profile(json::array({computer("A")}));
  for (int n : {1, 2, 5, 17}) {
    Prediction out = test::run(profile, test::workload(json::array({worker("w", 3000, n)})));
    REQUIRE(out.processes.size() == static_cast<std::size_t>(n));
    for (const auto& r : out.processes) {
      CHECK(r.finish_s == Approx(n * 3.0).epsilon(1e-12));
      CHECK(r.breakdown.cpu_s == Approx(3.0));
      CHECK(r.breakdown.waiting_s == Approx((n - 1) * 3.0).margin(1e-9));
    }
    CHECK(out.summary.mean_response_s == Approx(n * 3.0));
  }
}

TEST_CASE("simulator: processor sharing spreads processes over the cores of a multi-core computer") {
  Profile profile = test::profile(json::array({computer("A", 1000, 2)}));
  // 2 on 2 cores: no sharing. 4 on 2 cores: each gets half a core.
  CHECK(test::run(profile, test::workload(json::array({worker("w", 1000, 2)}))).summary.makespan_s == Approx(1.0));
  CHECK(test::run(profile, test::workload(json::array({worker("w", 1000, 4)}))).summary.makespan_s == Approx(2.0));
}

TEST_CASE("simulator: processor sharing recomputes rates when a process arrives during another's computation") {
  Profile profile = test::profile(json::array({computer("A")}));
  json b = worker("b", 1000);
  b["arrival_s"] = 0.5;
  Prediction out = test::run(profile, test::workload(json::array({worker("a", 1000), b})));
  // a alone for 0.5 s (500 MI), then both at 500 MIPS: a done at 1.5 s, b has 500 MI left, alone: 2.0 s.
  CHECK(test::process(out, "a").finish_s == Approx(1.5));
  CHECK(test::process(out, "b").finish_s == Approx(2.0));
  CHECK(test::process(out, "b").response_s == Approx(1.5));
}

TEST_CASE("simulator: disk accesses are served first in first out and the queueing time is waiting time (eq. 4-5)") {
  Profile profile = test::profile(json::array({computer("A")}));
  json p = {
      {"name", "r"}, {"count", 3}, {"mi", 0}, {"computer", "A"}, {"disk_read", {{"ops", 1}, {"bytes_per_op", 100e6}}}};
  Prediction out = test::run(profile, test::workload(json::array({p})));
  for (int k = 1; k <= 3; ++k) {
    const ProcessResult& r = test::process(out, "r-" + std::to_string(k));
    CHECK(r.finish_s == Approx(k * 1.0));
    CHECK(r.breakdown.disk_s == Approx(1.0));
    CHECK(r.breakdown.waiting_s == Approx(k - 1.0).margin(1e-9));
  }
}

TEST_CASE("simulator: a process's own reads and writes also queue behind other processes' accesses") {
  Profile profile = test::profile(json::array({computer("A")}));
  json w = {{"name", "w"}, {"mi", 0}, {"computer", "A"}, {"disk_write", {{"ops", 2}, {"bytes_per_op", 50e6}}}};
  json r = {{"name", "r"}, {"mi", 0}, {"computer", "A"}, {"disk_read", {{"ops", 1}, {"bytes_per_op", 100e6}}}};
  Prediction out = test::run(profile, test::workload(json::array({w, r})));
  // w's first write (1 s), then r's read (1 s), then w's second write (1 s).
  CHECK(test::process(out, "r").finish_s == Approx(2.0));
  CHECK(test::process(out, "w").finish_s == Approx(3.0));
  CHECK(test::process(out, "w").breakdown.waiting_s == Approx(1.0));
}

TEST_CASE("simulator: concurrent incoming transfers of a computer share its link bandwidth equally") {
  Profile profile = test::profile(json::array({computer("A"), computer("B")}), 1e6);
  auto receiver = [](const std::string& name, double bytes) {
    return json{
        {"name", name}, {"mi", 0}, {"computer", "A"}, {"messages", {{"count", 1}, {"bytes", bytes}, {"peer", "B"}}}};
  };
  // lo = 1 ms and l = 0: o = 0.5 ms of CPU work at each end (eq. 7), shared like any work: the three
  // packings share B's one core (1.5 ms), the three unpackings A's (1.5 ms).
  SECTION("three equal transfers finish together at three times s/b, plus the shared o at both ends") {
    Prediction out =
        test::run(profile, test::workload(json::array({receiver("x", 1e6), receiver("y", 1e6), receiver("z", 1e6)})));
    for (const auto& r : out.processes) {
      CHECK(r.finish_s == Approx(0.0015 + 3.0 + 0.0015));
      CHECK(r.breakdown.network_s == Approx(1.0 + 0.001));
      CHECK(r.breakdown.waiting_s == Approx(2.002));
    }
  }
  SECTION("a short transfer leaves its share to the long one when it ends") {
    Prediction out = test::run(profile, test::workload(json::array({receiver("short", 1e6), receiver("long", 2e6)})));
    // Both packings share B (1 ms); each unpacking is alone on A (0.5 ms).
    CHECK(test::process(out, "short").finish_s == Approx(0.001 + 2.0 + 0.0005));
    CHECK(test::process(out, "long").finish_s == Approx(0.001 + 3.0 + 0.0005));
  }
}

TEST_CASE("simulator: the outgoing link of the sender is shared too, and the slower of the two shares sets the rate") {
  Profile profile = test::profile(json::array({computer("A"), computer("B"), computer("C")}), 1e6);
  auto receiver = [](const std::string& name, const std::string& on) {
    return json{
        {"name", name}, {"mi", 0}, {"computer", on}, {"messages", {{"count", 1}, {"bytes", 1e6}, {"peer", "B"}}}};
  };
  // B sends to A twice and to C once: B's outgoing link carries 3 transfers, 1/3 of b each.
  Prediction out =
      test::run(profile, test::workload(json::array({receiver("a1", "A"), receiver("a2", "A"), receiver("c1", "C")})));
  // Three packings share B (1.5 ms), then 3 s on the wire; two unpackings share A (1 ms), one is alone
  // on C (0.5 ms).
  CHECK(test::process(out, "a1").finish_s == Approx(0.0015 + 3.0 + 0.001));
  CHECK(test::process(out, "a2").finish_s == Approx(0.0015 + 3.0 + 0.001));
  CHECK(test::process(out, "c1").finish_s == Approx(0.0015 + 3.0 + 0.0005));
}

TEST_CASE("simulator: messages to a process on the same computer do not use the network") {
  Profile profile = test::profile(json::array({computer("A"), computer("B")}), 1e6);
  json master = {{"name", "master"}, {"mi", 0}, {"computer", "A"}};
  json local = {{"name", "local"},
                {"mi", 0},
                {"computer", "A"},
                {"messages", {{"count", 2}, {"bytes", 1e6}, {"peer", "master"}}}};
  json remote = {{"name", "remote"},
                 {"mi", 0},
                 {"computer", "B"},
                 {"messages", {{"count", 2}, {"bytes", 1e6}, {"peer", "master"}}}};
  Prediction out = test::run(profile, test::workload(json::array({master, local, remote})));
  CHECK(test::process(out, "local").response_s == Approx(0).margin(1e-12));
  CHECK(test::process(out, "remote").response_s == Approx(2 * (1.0 + 0.001)));
}

TEST_CASE("simulator: transfers take their share of the computer's processing capacity (communication_cpu)") {
  json a = computer("A");
  a["communication_cpu"] = {{"per_receive", 0.5}};
  Profile profile = test::profile(json::array({a, computer("B")}), 1e6);
  json cpu = worker("cpu", 1000);
  json rx = {{"name", "rx"}, {"mi", 0}, {"computer", "A"}, {"messages", {{"count", 1}, {"bytes", 1e6}, {"peer", "B"}}}};
  Prediction out = test::run(profile, test::workload(json::array({cpu, rx})));
  // B packs (0.5 ms, cpu runs alone: 0.5 MI); for the 1 s of streaming the transfer takes half of A
  // (500 MI); rx's unpacking (0.5 MI) then shares A with cpu for 1 ms (0.5 MI more); the last 499 MI
  // take 0.499 s: 1.5005 s.
  CHECK(test::process(out, "cpu").finish_s == Approx(1.5005));
  CHECK(test::process(out, "rx").finish_s == Approx(1.0015));
  // Without the field, communication is free (today's behaviour).
  Profile free = test::profile(json::array({computer("A"), computer("B")}), 1e6);
  CHECK(test::process(test::run(free, test::workload(json::array({cpu, rx}))), "cpu").finish_s == Approx(1.0));
}

TEST_CASE("simulator: a periodic load balancer migrates processes, pays the cost and sums the stays (eq. 9)") {
  Profile profile = test::profile(json::array({computer("S", 1000), computer("F", 4000)}));
  json w = {{"name", "w"}, {"count", 3}, {"mi", 1000}};
  json policy = {{"placement", "round_robin"},
                 {"load_balancer", {{"period_s", 0.5}, {"migration_cost_s", 0.1}, {"threshold", 1.25}}}};
  Prediction out = test::run(profile, test::workload(json::array({w}), policy));
  // Round robin: w-1 on S, w-2 on F (done at 0.25 s), w-3 on S. At 0.5 s both on S have 750 MI left;
  // w-1 moves to F (arrives 0.6 s, done 0.6 + 750/4000). At 1.0 s w-3 (250 MI left) moves too.
  const ProcessResult& w1 = test::process(out, "w-1");
  const ProcessResult& w3 = test::process(out, "w-3");
  CHECK(test::process(out, "w-2").finish_s == Approx(0.25));
  CHECK(w1.finish_s == Approx(0.7875));
  CHECK(w3.finish_s == Approx(1.1625));
  CHECK(out.summary.migrations == 2);
  CHECK(w1.computer == "F");
  REQUIRE(w1.segments.size() == 2);
  CHECK(w1.segments[0].computer == "S");
  CHECK(w1.segments[0].to_s == Approx(0.5));
  CHECK(w1.segments[1].computer == "F");
  std::vector<double> stays;
  for (const auto& s : w1.segments) stays.push_back(s.to_s - s.from_s);
  CHECK(unimpp::migrated_response_time(stays) == Approx(w1.response_s));  // eq. 9
  CHECK(w1.breakdown.cpu_s == Approx(250.0 / 1000 + 750.0 / 4000));
  CHECK(w1.breakdown.migration_s == Approx(0.1));
  CHECK(w1.breakdown.waiting_s == Approx(0.7875 - 0.4375 - 0.1));
  CHECK(test::process(out, "w-2").segments.empty());

  SECTION("a prohibitive migration cost keeps everyone in place") {
    json costly = policy;
    costly["load_balancer"]["migration_cost_s"] = 100;
    Prediction still = test::run(profile, test::workload(json::array({w}), costly));
    CHECK(still.summary.migrations == 0);
    CHECK(test::process(still, "w-1").finish_s == Approx(2.0));
  }
}

TEST_CASE("simulator: generators produce the requested count or stop at the horizon") {
  Profile profile = test::profile(json::array({computer("A")}));
  json j = {{"schema", "hetperf.workload/1"},
            {"seed", 7},
            {"generators",
             json::array(
                 {{{"process", {{"name", "c"}, {"mi", 1}}}, {"interarrival_s", 0.5}, {"start_s", 1}, {"horizon_s", 10}},
                  {{"process", {{"name", "e"}, {"mi", 1}}},
                   {"interarrival_s", {{"distribution", "exponential"}, {"mean", 2}}},
                   {"count", 2000}}})}};
  Prediction out = test::run(profile, workload_from_json(j, "gen.json"));
  std::size_t constant = 0, exponential = 0;
  double last_e = 0;
  for (const auto& r : out.processes) {
    if (r.name.rfind("c-", 0) == 0) {
      ++constant;
      CHECK(r.arrival_s >= 1);
      CHECK(r.arrival_s <= 10);
    } else {
      ++exponential;
      CHECK(r.arrival_s >= last_e);
      last_e = r.arrival_s;
    }
  }
  CHECK(constant == 19);  // 1, 1.5, ..., 10
  CHECK(exponential == 2000);
  CHECK(last_e / 1999 == Approx(2.0).epsilon(0.08));  // mean inter-arrival time
}

TEST_CASE("simulator: the same workload and seed give byte-identical output and another seed changes it") {
  Profile profile = read_profile(std::string(HETPERF_SOURCE_DIR) + "/examples/integration/c3c4.json");
  Workload w = read_workload(std::string(HETPERF_SOURCE_DIR) + "/examples/workloads/quickstart.json");
  sim::SimulationOptions random;
  random.placement = "random";
  std::string first = to_json(test::run(profile, w, random)).dump();
  std::string second = to_json(test::run(profile, w, random)).dump();
  CHECK(first == second);
  random.seed = 12345;
  CHECK(to_json(test::run(profile, w, random)).dump() != first);
}

TEST_CASE("simulator: per-computer timelines stay bounded and cover the run with utilisation and memory") {
  Profile profile = test::profile(json::array({computer("A"), computer("B")}));
  json p = {{"name", "p"}, {"mi", 10000}, {"static_memory_mb", 100}, {"computer", "A"}};
  json q = {{"name", "q"}, {"mi", 5000}, {"static_memory_mb", 20}, {"computer", "B"}};
  sim::SimulationOptions options;
  options.timeline_points = 16;
  Prediction out = test::run(profile, test::workload(json::array({p, q})), options);
  const ComputerTimeline& a = out.computers.at(0).timeline;
  const ComputerTimeline& b = out.computers.at(1).timeline;
  REQUIRE(a.utilisation.size() <= 16);
  CHECK(a.interval_s * static_cast<double>(a.utilisation.size()) >= 10.0);
  CHECK(a.utilisation.front() == Approx(1.0));
  CHECK(a.memory_mb.front() == Approx(100.0));
  // B is busy for the first 5 s of 10: the timeline's time average says so.
  double busy = 0;
  for (std::size_t k = 0; k < b.utilisation.size(); ++k) {
    busy += b.utilisation[k] * std::min(b.interval_s, 10.0 - static_cast<double>(k) * b.interval_s);
  }
  CHECK(busy == Approx(5.0));
  options.timeline_points = 0;
  CHECK(test::run(profile, test::workload(json::array({p, q})), options).computers.at(0).timeline.utilisation.empty());
}

TEST_CASE("simulator: a prediction with migrations and timelines reads back from its JSON") {
  Profile profile = test::profile(json::array({computer("S", 1000), computer("F", 4000)}));
  json policy = {{"placement", "round_robin"}, {"load_balancer", {{"period_s", 0.5}, {"migration_cost_s", 0.1}}}};
  Prediction out =
      test::run(profile, test::workload(json::array({{{"name", "w"}, {"count", 3}, {"mi", 1000}}}), policy));
  json j = to_json(out);
  Prediction back = prediction_from_json(j, "back.json");
  CHECK(to_json(back).dump() == j.dump());
}

TEST_CASE("simulator: a process that does not fit beside the residents' memory waits until it does") {
  json a = computer("A");
  a["main_memory_mb"] = 100;
  a["virtual_memory_mb"] = 20;
  Profile profile = test::profile(json::array({a}));
  json p = {{"name", "p"}, {"count", 3}, {"mi", 1000}, {"computer", "A"}, {"static_memory_mb", 60}};
  Prediction out = test::run(profile, test::workload(json::array({p})));
  // mm + vm = 120 MB holds two of the 60 MB processes: p-1 and p-2 share the core (2 s); p-3 waits
  // for their memory and then runs alone (1 s).
  CHECK(test::process(out, "p-1").finish_s == Approx(2.0));
  CHECK(test::process(out, "p-3").start_s == Approx(2.0));
  CHECK(test::process(out, "p-3").finish_s == Approx(3.0));
  CHECK(test::process(out, "p-3").breakdown.waiting_s == Approx(2.0));
  CHECK(out.computers.at(0).peak_memory_mb == Approx(120));
}

TEST_CASE("simulator: results streamed as processes finish give the same summary without keeping them") {
  Profile profile = test::profile(json::array({computer("A"), computer("B", 1500, 2)}));
  json gen = {{"process",
               {{"name", "g"},
                {"mi", {{"distribution", "exponential"}, {"mean", 500}}},
                {"messages", {{"count", 2}, {"bytes", 1000}, {"peer", "B"}}}}},
              {"interarrival_s", {{"distribution", "exponential"}, {"mean", 0.2}}},
              {"count", 300}};
  json j = {{"schema", "hetperf.workload/1"}, {"seed", 5}, {"generators", json::array({gen})}};
  Workload w = workload_from_json(j, "w.json");
  Prediction kept = test::run(profile, w);
  sim::SimulationOptions o;
  o.keep_processes = false;
  std::vector<ProcessResult> streamed;
  std::vector<std::uint64_t> indices;
  o.on_process = [&](const ProcessResult& r, std::uint64_t index) {
    streamed.push_back(r);
    indices.push_back(index);
  };
  Prediction summary = test::run(profile, w, o);
  CHECK(summary.processes.empty());
  CHECK(streamed.size() == 300);
  CHECK(summary.summary.mean_response_s == kept.summary.mean_response_s);
  CHECK(summary.summary.median_response_s == kept.summary.median_response_s);
  CHECK(summary.summary.p95_response_s == kept.summary.p95_response_s);
  CHECK(summary.summary.makespan_s == kept.summary.makespan_s);
  // In finish order, each the same as its kept counterpart.
  for (std::size_t k = 1; k < streamed.size(); ++k) CHECK(streamed[k].finish_s >= streamed[k - 1].finish_s);
  CHECK(test::process(kept, streamed.front().name).finish_s == streamed.front().finish_s);
  // Each index is the process's place among the kept results.
  for (std::size_t k = 0; k < streamed.size(); ++k) {
    REQUIRE(indices[k] < kept.processes.size());
    CHECK(kept.processes[indices[k]].name == streamed[k].name);
    CHECK(kept.processes[indices[k]].finish_s == streamed[k].finish_s);
  }
}

TEST_CASE("simulator: a run estimated beyond the memory allowed is refused before it starts, naming the size") {
  Profile profile = test::profile(json::array({computer("A")}));
  Workload w = test::workload(json::array({{{"name", "p"}, {"count", 1000000}, {"mi", 1}}}));
  sim::SimulationOptions o;
  o.max_memory_bytes = 64u << 20;
  CHECK(sim::estimate_simulation_bytes(profile, w, o).processes == 1000000);
  CHECK_THROWS_WITH(test::run(profile, w, o),
                    Catch::Contains("1000000 processes would take about") && Catch::Contains("--summary-only"));
}

TEST_CASE("simulator: a memory slowdown beyond any plausible figure is an error, not a number") {
  json a = computer("A");
  a["slowdown"] = {{"main", {{"kind", "linear"}, {"a_per_mb", 0.001}, {"b", 0}}},
                   {"virtual", {{"kind", "exponential"}, {"c", 1}, {"d_per_mb", 1}}}};
  Profile profile = test::profile(json::array({a}));
  Workload w = test::workload(json::array({{{"name", "p"}, {"mi", 1}, {"static_memory_mb", 1900}}}));
  CHECK_THROWS_WITH(test::run(profile, w), Catch::Contains("computer 'A': its memory slowdown at 1900") &&
                                               Catch::Contains("beyond any plausible slowdown"));
}
