// The master/worker star (one master, FIFO workers) in SimGrid (s4u, Debian's libsimgrid-dev): the oracle hetperf's
// engine is checked against (tests/simgrid/master_worker_diff.sh) and timed beside
// (benchmarks/README.md).
//
// One master, W workers of unlike speeds (1 core each), T tasks; task k goes to worker k mod W: an
// input of in_bytes from the master, flops of work on the worker, a result of out_bytes back. Every
// input is sent at t = 0. Workers are FIFO: as many tasks compute at once as the worker has cores,
// each on one core, the others wait in the order the inputs arrived (an s4u::Semaphore per worker). A task's response
// time is when its result has reached the master.
//
// The platform is hetperf's star (DPS paper section 4): each host has a split-duplex private link of
// bandwidth b to the centre of a star zone, latency l/2 each way, so a route is l + s/b alone; the
// network model is CM02 (bandwidth and latency factors 1, no cross traffic, no RTT weighting), which
// shares each link equally among its flows; in a star with one master that is hetperf's min of the
// two link shares.
//
// Usage: master_worker_simgrid W T IN_BYTES OUT_BYTES FLOPS MASTER_SPEED SPEEDS BANDWIDTH LATENCY [PLATFORM]
//   SPEEDS: comma-separated flop rates, cycled over the workers (worker w gets SPEEDS[w mod n]).
//   PLATFORM: a SimGrid platform file (`hetperf export --simgrid`) with hosts "master", "w-1" ..
//   "w-W"; then the hosts, their speeds and links come from it, and MASTER_SPEED, SPEEDS, BANDWIDTH
//   and LATENCY are not used.
// Prints one JSON line: {"makespan_s", "mean_response_s", "tasks", "wall_s"}.
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Scenario {
  int workers = 1;
  long tasks = 1;
  double in_bytes = 0, out_bytes = 0, flops = 0, master_speed = 1, bandwidth = 1, latency = 0;
  std::vector<double> speeds;
};

std::vector<double> response_s;

void task(const Scenario& s, long k, sg4::Mailbox* in, sg4::Mailbox* out, sg4::SemaphorePtr cores) {
  static char payload;
  in->get<char>();
  cores->acquire();
  sg4::this_actor::execute(s.flops);
  cores->release();
  out->put(&payload, static_cast<uint64_t>(s.out_bytes));
  response_s[static_cast<std::size_t>(k)] = sg4::Engine::get_clock();
}

void master(const Scenario& s, std::vector<sg4::Mailbox*> in, std::vector<sg4::Mailbox*> out) {
  static char payload;
  std::vector<sg4::CommPtr> comms;
  comms.reserve(2 * in.size());
  std::vector<char*> results(out.size());
  for (auto* m : in) comms.push_back(m->put_async(&payload, static_cast<uint64_t>(s.in_bytes)));
  for (std::size_t k = 0; k < out.size(); ++k) comms.push_back(out[k]->get_async<char>(&results[k]));
  sg4::Comm::wait_all(comms);
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);
  if (argc != 10 && argc != 11) {
    std::fprintf(stderr, "usage: %s W T IN_BYTES OUT_BYTES FLOPS MASTER_SPEED SPEEDS BANDWIDTH LATENCY [PLATFORM]\n",
                 argv[0]);
    return 2;
  }
  Scenario s;
  s.workers = std::atoi(argv[1]);
  s.tasks = std::atol(argv[2]);
  s.in_bytes = std::atof(argv[3]);
  s.out_bytes = std::atof(argv[4]);
  s.flops = std::atof(argv[5]);
  s.master_speed = std::atof(argv[6]);
  std::stringstream list(argv[7]);
  for (std::string item; std::getline(list, item, ',');) s.speeds.push_back(std::atof(item.c_str()));
  s.bandwidth = std::atof(argv[8]);
  s.latency = std::atof(argv[9]);
  if (s.workers < 1 || s.tasks < 1 || s.speeds.empty()) {
    std::fprintf(stderr, "%s: W, T and SPEEDS must be positive\n", argv[0]);
    return 2;
  }
  // The model hetperf implements: equal sharing per link, latency then bandwidth, nothing else.
  e.set_config("network/model:CM02");
  e.set_config("network/crosstraffic:0");
  // One actor per task: at 100,000 tasks the guard pages of their stacks exceed the kernel's
  // vm.max_map_count, so actors go without them (their code is this file's few lines).
  e.set_config("contexts/guard-size:0");

  sg4::Host* master_host = nullptr;
  std::vector<sg4::Host*> workers;
  std::vector<sg4::SemaphorePtr> cores;
  if (argc == 11) {
    e.load_platform(argv[10]);
    master_host = sg4::Host::by_name("master");
    for (int w = 0; w < s.workers; ++w) workers.push_back(sg4::Host::by_name("w-" + std::to_string(w + 1)));
  } else {
    auto* zone = sg4::create_star_zone("star");
    auto add_host = [&](const std::string& name, double speed) {
      sg4::Host* h = zone->create_host(name, speed)->seal();
      sg4::Link* link = zone->create_split_duplex_link(name + "-link", s.bandwidth)->set_latency(s.latency / 2)->seal();
      zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
      return h;
    };
    master_host = add_host("master", s.master_speed);
    for (int w = 0; w < s.workers; ++w) {
      workers.push_back(
          add_host("w-" + std::to_string(w + 1), s.speeds[static_cast<std::size_t>(w) % s.speeds.size()]));
    }
    zone->seal();
  }
  // A worker serves as many tasks at once as it has cores, each on one core, in arrival order.
  for (sg4::Host* h : workers) cores.push_back(sg4::Semaphore::create(static_cast<unsigned>(h->get_core_count())));

  response_s.assign(static_cast<std::size_t>(s.tasks), 0);
  std::vector<sg4::Mailbox*> in, out;
  for (long k = 0; k < s.tasks; ++k) {
    in.push_back(sg4::Mailbox::by_name("in-" + std::to_string(k)));
    out.push_back(sg4::Mailbox::by_name("out-" + std::to_string(k)));
  }
  sg4::Actor::create("master", master_host, [&s, in, out] { master(s, in, out); });
  for (long k = 0; k < s.tasks; ++k) {
    const auto w = static_cast<std::size_t>(k % s.workers);
    sg4::SemaphorePtr core = cores[w];
    sg4::Mailbox* mi = in[static_cast<std::size_t>(k)];
    sg4::Mailbox* mo = out[static_cast<std::size_t>(k)];
    sg4::Actor::create("task-" + std::to_string(k), workers[w], [&s, k, mi, mo, core] { task(s, k, mi, mo, core); });
  }

  const auto start = std::chrono::steady_clock::now();
  e.run();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double sum = 0, makespan = 0;
  for (double r : response_s) {
    sum += r;
    makespan = std::max(makespan, r);
  }
  std::printf("{\"makespan_s\": %.17g, \"mean_response_s\": %.17g, \"tasks\": %ld, \"wall_s\": %.6f}\n", makespan,
              sum / static_cast<double>(s.tasks), s.tasks, wall_s);
  return 0;
}
