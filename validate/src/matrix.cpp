// The validation matrix, its accuracy figures and reports (see matrix.hpp).
#include "hetperf/validate/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "hetperf/model/csv.hpp"
#include "hetperf/model/distribution.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/gnuplot.hpp"
#include "hetperf/model/statistics.hpp"
#include "text.hpp"

namespace hetperf::validate {
using namespace apps;
namespace {

using text::fixed;
using text::percent;

AppJob lu_job(const std::string& name, int ranks, int n, int r, LuVariant variant, int remove, int after,
              std::size_t computer) {
  AppJob job;
  job.name = name;
  job.kind = AppJob::Kind::kLu;
  job.ranks = ranks;
  job.lu.n = n, job.lu.r = r, job.lu.variant = variant;
  job.lu.remove = remove, job.lu.remove_after_iteration = remove ? after : -1;
  job.mapping.assign(static_cast<std::size_t>(ranks), computer);
  return job;
}

// The command lines of hetperf-lu and hetperf-integrate, for every matrix (calibration, validation, testbed).
std::vector<std::string> lu_arguments(const ValidationMatrixOptions& o, int n, int r, LuVariant v) {
  return {o.lu_program, "--n", std::to_string(n), "--r", std::to_string(r), "--variant", to_string(v)};
}

std::vector<std::string> integrate_arguments(const ValidationMatrixOptions& o, int instances, std::uint64_t steps,
                                             std::uint64_t message_bytes, std::uint64_t disk_bytes) {
  return {o.integrate_program,
          "--instances",
          std::to_string(instances),
          "--steps",
          std::to_string(steps),
          "--message-bytes",
          std::to_string(message_bytes),
          "--disk-bytes",
          std::to_string(disk_bytes),
          "--scratch",
          o.scratch};
}

}  // namespace

std::vector<int> validation_kernel_blocks(bool quick) {
  if (quick) return {32, 64, 96, 128, 192, 256};
  return {32, 48, 64, 96, 128, 192, 256, 384};
}

LuSizes lu_sizes(bool quick, std::uint64_t cache_bytes) {
  // The smallest multiple of 512 whose matrix (8 n² bytes) is at least twice the cache.
  int n1 = 512;
  while (8.0 * n1 * n1 < 2.0 * static_cast<double>(cache_bytes)) n1 += 512;
  LuSizes s;
  s.calibrated = {n1, n1 + 512};
  const int top = s.calibrated.back();
  const auto round512 = [](double n) { return static_cast<int>(std::lround(n / 512)) * 512; };
  s.validated = quick ? std::vector<int>{round512(1.5 * top)} : std::vector<int>{round512(1.5 * top), 2 * top};
  return s;
}

int validation_lu_rows(bool quick, std::uint64_t cache_bytes) { return lu_sizes(quick, cache_bytes).validated.back(); }

namespace {

ValidationRun lu_run(const ValidationMatrixOptions& o, std::size_t computer, int n, int r, int p, LuVariant v) {
  ValidationRun run;
  run.id = "lu-n" + std::to_string(n) + "-r" + std::to_string(r) + "-p" + std::to_string(p) + "-" + to_string(v);
  run.group = "lu";
  run.ranks = p;
  run.job = lu_job(run.id, p, n, r, v, 0, -1, computer);
  run.arguments = lu_arguments(o, n, r, v);
  return run;
}

// LU configurations that differ from the calibration runs (basic, at the calibrated sizes, on 1 and C
// ranks) along one or more axes: rank counts never calibrated (C + 1 and 2C, both oversubscribed),
// sizes up to twice the largest calibrated, the other variants. The full matrix also runs the
// calibration's own configurations afresh (group "calibrated", their runs disjoint from the
// calibration's): what the predictions are worth where the application was run.
std::vector<ValidationRun> lu_matrix(const ValidationMatrixOptions& o, std::size_t computer) {
  const LuSizes sizes = lu_sizes(o.quick, o.cache_bytes);
  const int c = o.cores;
  std::vector<int> calibrated_ranks = {1, c}, held_out_ranks = {c + 1, 2 * c};
  calibrated_ranks.erase(std::unique(calibrated_ranks.begin(), calibrated_ranks.end()), calibrated_ranks.end());
  if (c == 1) held_out_ranks = {2, 3};
  const std::vector<LuVariant> variants = {LuVariant::kBasic, LuVariant::kPipelined, LuVariant::kFlowControl};
  std::vector<ValidationRun> runs;
  if (o.quick) {
    // What detects a broken model: each axis once, r = 128.
    const int big = sizes.validated.front(), small = sizes.calibrated.front();
    for (int p : calibrated_ranks) runs.push_back(lu_run(o, computer, big, 128, p, LuVariant::kBasic));
    runs.push_back(lu_run(o, computer, big, 128, held_out_ranks.front(), LuVariant::kBasic));
    runs.push_back(lu_run(o, computer, small, 128, held_out_ranks.back(), LuVariant::kBasic));
    runs.push_back(lu_run(o, computer, small, 128, c, LuVariant::kPipelined));
    runs.push_back(lu_run(o, computer, small, 128, held_out_ranks.front(), LuVariant::kFlowControl));
    return runs;
  }
  std::vector<int> all_ranks = calibrated_ranks;
  all_ranks.insert(all_ranks.end(), held_out_ranks.begin(), held_out_ranks.end());
  for (int r : {64, 128, 256}) {
    for (LuVariant v : variants) {
      for (int n : sizes.validated) {
        for (int p : all_ranks) runs.push_back(lu_run(o, computer, n, r, p, v));
      }
      for (int n : sizes.calibrated) {
        for (int p : all_ranks) {
          ValidationRun run = lu_run(o, computer, n, r, p, v);
          if (v == LuVariant::kBasic && std::count(calibrated_ranks.begin(), calibrated_ranks.end(), p))
            run.group = "calibrated";
          runs.push_back(std::move(run));
        }
      }
    }
  }
  return runs;
}

}  // namespace

std::vector<ValidationRun> validation_matrix(const ValidationMatrixOptions& o, const Profile& profile) {
  std::size_t computer = 0;
  if (!o.computer.empty()) {
    auto found = profile.find(o.computer);
    if (!found) throw InputError("validate: computer '" + o.computer + "' is not in the profile");
    computer = *found;
  }
  std::vector<ValidationRun> runs = lu_matrix(o, computer);
  // Node removal: a quarter and a half of the ranks leave, early and half way (2C ranks: a rank
  // count never calibrated).
  struct Removal {
    int n, r, ranks, remove, after;
    LuVariant variant;
  };
  std::vector<Removal> removals;
  const int p = std::max(2, 2 * o.cores);
  const int n = lu_sizes(o.quick, o.cache_bytes).validated.front();
  if (o.quick) {
    removals = {{n, 128, p, 1, 3, LuVariant::kBasic}};
  } else {
    removals = {{n, 128, p, 1, 3, LuVariant::kBasic},
                {n, 128, p, p / 2, 7, LuVariant::kBasic},
                {n, 128, p, 1, 3, LuVariant::kPipelined},
                {n, 128, p, p / 2, 7, LuVariant::kPipelined}};
  }
  for (const Removal& m : removals) {
    ValidationRun run;
    run.id = "lu-n" + std::to_string(m.n) + "-r" + std::to_string(m.r) + "-p" + std::to_string(m.ranks) + "-" +
             to_string(m.variant) + "-remove" + std::to_string(m.remove) + "@" + std::to_string(m.after);
    run.group = "lu-removal";
    run.ranks = m.ranks;
    run.job = lu_job(run.id, m.ranks, m.n, m.r, m.variant, m.remove, m.after, computer);
    run.arguments = lu_arguments(o, m.n, m.r, m.variant);
    run.arguments.insert(run.arguments.end(),
                         {"--remove", std::to_string(m.remove), "--after-iteration", std::to_string(m.after)});
    runs.push_back(run);
  }
  // Integration: N processes, each an instance of one master and one worker; the calibration runs one
  // instance alone (its 2 ranks), so every count here is a rank count never calibrated.
  const std::uint64_t steps = o.quick ? 2'000'000 : 4'000'000;
  auto integrate = [&](int processes, std::uint64_t message_bytes, std::uint64_t disk_bytes, const std::string& group) {
    ValidationRun run;
    run.id = "integrate-" + std::to_string(processes) + (message_bytes == 32 && disk_bytes == 0 ? "" : "-load");
    run.group = group;
    run.ranks = 2 * processes;
    AppJob& job = run.job;
    job.name = run.id;
    job.kind = AppJob::Kind::kIntegrate;
    job.instances = processes;
    job.ranks = 2;
    job.integrate.steps = steps;
    job.integrate.message_bytes = message_bytes;
    job.integrate.disk_bytes = disk_bytes;
    job.mapping.assign(static_cast<std::size_t>(2 * processes), computer);
    run.arguments = integrate_arguments(o, processes, steps, message_bytes, disk_bytes);
    runs.push_back(run);
  };
  // The quick matrix at half the processes (5 and 10 per core rather than 10 and 20): MPICH starts
  // about 12 ranks a second here (3.4 s for 40), and the runs of 20 and 40 ranks took 55 s of quick's
  // 145 s of runs, mostly in that start-up, which is not timed.
  const std::vector<int> counts =
      o.quick ? std::vector<int>{5, 10} : std::vector<int>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  for (int k : counts) integrate(k, 32, 0, "integrate");
  const std::vector<int> loaded = o.quick ? std::vector<int>{5} : std::vector<int>{10, 50, 100};
  for (int k : loaded) integrate(k, 65536, 1 << 20, "integrate-load");
  if (!o.quick) {
    // The calibration's one instance at the matrix's length, without and with the load.
    integrate(1, 32, 0, "calibrated");
    integrate(1, 65536, 1 << 20, "calibrated");
  }
  return runs;
}

std::vector<std::string> held_out_axes(const ValidationRun& run, const Profile& profile) {
  std::map<std::size_t, int> ranks_on;
  for (std::size_t c : run.job.mapping) ++ranks_on[c];
  const bool lu = run.job.kind == AppJob::Kind::kLu;
  const double size = lu ? run.job.lu.n : static_cast<double>(run.job.integrate.steps);
  std::set<std::string> axes;
  for (const auto& [c, ranks] : ranks_on) {
    const CalibratedRange& range = profile.computers[c].app_models.calibrated;
    if (range.ranks.empty()) continue;
    for (const auto& [d, k] : ranks_on) {
      if (d != c && !std::count(range.with.begin(), range.with.end(), profile.computers[d].name))
        axes.insert("computers");
    }
    if (!std::count(range.ranks.begin(), range.ranks.end(), ranks)) axes.insert("ranks");
    const auto sizes = range.sizes.find(lu ? "lu" : "integrate");
    if (sizes == range.sizes.end() || size < sizes->second.first || size > sizes->second.second) axes.insert("size");
    if (lu && !std::count(range.variants.begin(), range.variants.end(), to_string(run.job.lu.variant)))
      axes.insert("variant");
  }
  return {axes.begin(), axes.end()};
}

std::map<std::string, Statistics> axis_statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed) {
  std::map<std::string, std::vector<ValidationRun>> by_axis;
  for (const auto& r : runs) {
    if (r.axes.empty()) by_axis["calibrated regime"].push_back(r);
    for (const auto& a : r.axes) by_axis[a].push_back(r);
  }
  std::map<std::string, Statistics> out;
  for (const auto& [a, list] : by_axis) out[a] = statistics(list, seed);
  return out;
}

std::vector<CalibrationRun> calibration_matrix(const ValidationMatrixOptions& o) {
  std::vector<CalibrationRun> out;
  // The budget of a user who has not run the application at scale: one rank and one per core, two
  // sizes, the basic variant. The sizes are the smallest whose matrices are out of the last-level
  // cache (lu_sizes): calibrated in the cache, the kernels' rates did not carry to larger matrices
  // (n = 768 and 1024 in an 8 MiB cache put n = 1536-3072 on one rank 8-12% short; n = 2560 and 3584
  // put them within ±1.1%, results/vm/2026-11-27).
  const LuSizes sizes = lu_sizes(o.quick, o.cache_bytes);
  const std::vector<int> rs = o.quick ? std::vector<int>{64, 128} : std::vector<int>{64, 128, 256};
  std::vector<int> ranks = {1, o.cores};
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  for (int n : sizes.calibrated) {
    for (int r : rs) {
      for (int p : ranks) {
        CalibrationRun c;
        c.id = "cal-lu-n" + std::to_string(n) + "-r" + std::to_string(r) + "-p" + std::to_string(p);
        c.ranks = p;
        c.arguments = {o.lu_program, "--n", std::to_string(n), "--r", std::to_string(r)};
        c.shape = "lu n=" + std::to_string(n) + " r=" + std::to_string(r) + " ranks=" + std::to_string(p);
        out.push_back(c);
      }
    }
  }
  // One integration instance (a master and a worker) alone, at two lengths, with the default 32-byte
  // result and again with the load's 64 KiB result and 1 MiB written: the per-step time, the messages'
  // protocol and the disk, each measured where nothing else runs.
  auto integrate = [&](std::uint64_t s, std::uint64_t message_bytes, std::uint64_t disk_bytes) {
    CalibrationRun c;
    c.id = "cal-integrate-1-" + std::to_string(s);
    c.ranks = 2;
    c.arguments = integrate_arguments(o, 1, s, message_bytes, disk_bytes);
    c.shape = "integrate 1 instance, " + std::to_string(s) + " steps";
    if (message_bytes != 32 || disk_bytes != 0) {
      c.id += "-m" + std::to_string(message_bytes) + "-d" + std::to_string(disk_bytes);
      c.shape +=
          ", " + std::to_string(message_bytes) + "-byte messages, " + std::to_string(disk_bytes) + " bytes to disk";
    }
    out.push_back(c);
  };
  for (std::uint64_t s : {1'000'000ULL, 4'000'000ULL}) {
    integrate(s, 32, 0);
    integrate(s, 65536, 1 << 20);
  }
  return out;
}

namespace {

std::vector<std::size_t> mapping_of(const Profile& profile, const std::vector<std::string>& hosts) {
  std::vector<std::size_t> mapping;
  for (const auto& h : hosts) {
    auto found = profile.find(h);
    if (!found) throw InputError("validate: testbed computer '" + h + "' is not in the profile");
    mapping.push_back(*found);
  }
  return mapping;
}

// Instances whose master and worker alternate: (f, s), (s, f), (f, s), ...
std::vector<std::string> alternating(int instances, const std::string& f, const std::string& s) {
  std::vector<std::string> hosts;
  for (int i = 0; i < instances; ++i) {
    hosts.push_back(i % 2 == 0 ? f : s);
    hosts.push_back(i % 2 == 0 ? s : f);
  }
  return hosts;
}

}  // namespace

std::vector<ValidationRun> testbed_matrix(const ValidationMatrixOptions& o, const Profile& profile,
                                          const std::string& f, const std::string& s) {
  std::vector<ValidationRun> runs;
  auto add = [&](ValidationRun run, const std::vector<std::string>& hosts) {
    run.hosts = hosts;
    run.ranks = static_cast<int>(hosts.size());
    run.job.name = run.id;
    run.job.mapping = mapping_of(profile, hosts);
    runs.push_back(std::move(run));
  };
  auto lu = [&](const std::string& id, const std::string& group, const std::vector<std::string>& hosts, int n, int r,
                LuVariant v, int remove, int after) {
    ValidationRun run;
    run.id = id;
    run.group = group;
    run.job = lu_job(id, static_cast<int>(hosts.size()), n, r, v, remove, after, 0);
    run.arguments = lu_arguments(o, n, r, v);
    if (remove) {
      run.arguments.insert(run.arguments.end(),
                           {"--remove", std::to_string(remove), "--after-iteration", std::to_string(after)});
    }
    add(std::move(run), hosts);
  };
  const std::string tag = "-" + f + s;
  // One rank on each computer: the basic flow graph and its two variants; also with rank 0 on the slow one.
  const std::vector<int> ns = o.quick ? std::vector<int>{1024} : std::vector<int>{1024, 1536};
  const std::vector<int> rs = o.quick ? std::vector<int>{64} : std::vector<int>{64, 128};
  for (int n : ns) {
    for (int r : rs) {
      for (LuVariant v : {LuVariant::kBasic, LuVariant::kPipelined, LuVariant::kFlowControl}) {
        lu("lu-n" + std::to_string(n) + "-r" + std::to_string(r) + "-" + to_string(v) + tag, "lu", {f, s}, n, r, v, 0,
           -1);
      }
    }
  }
  lu("lu-n1536-r128-basic-" + s + f, "lu", {s, f}, 1536, 128, LuVariant::kBasic, 0, -1);
  // Four ranks, two on each computer: cyclic and block mappings.
  for (int r : o.quick ? std::vector<int>{128} : std::vector<int>{64, 128}) {
    lu("lu-n1536-r" + std::to_string(r) + "-p4-cyclic" + tag, "lu-mapping", {f, s, f, s}, 1536, r, LuVariant::kBasic, 0,
       -1);
    lu("lu-n1536-r" + std::to_string(r) + "-p4-block" + tag, "lu-mapping", {f, f, s, s}, 1536, r, LuVariant::kBasic, 0,
       -1);
  }
  // The slow computer's ranks leave (the highest-numbered ranks are removed, so they are placed last).
  lu("lu-n1536-r128-basic" + tag + "-remove1@3", "lu-removal", {f, s}, 1536, 128, LuVariant::kBasic, 1, 3);
  if (!o.quick) {
    lu("lu-n1536-r128-pipelined" + tag + "-remove1@3", "lu-removal", {f, s}, 1536, 128, LuVariant::kPipelined, 1, 3);
    lu("lu-n1536-r128-p4-block" + tag + "-remove2@5", "lu-removal", {f, f, s, s}, 1536, 128, LuVariant::kBasic, 2, 5);
  }
  // Integration: masters and workers on both kinds of computer; 32-byte and 64 KiB results.
  const std::uint64_t steps = 4'000'000;
  for (std::uint64_t bytes : {std::uint64_t{32}, std::uint64_t{65536}}) {
    for (int instances : o.quick ? std::vector<int>{2} : std::vector<int>{1, 2, 4}) {
      ValidationRun run;
      const bool load = bytes != 32;
      run.id = "integrate-" + std::to_string(instances) + (load ? "-load" : "") + tag;
      run.group = load ? "integrate-load" : "integrate";
      run.job.kind = AppJob::Kind::kIntegrate;
      run.job.instances = instances;
      run.job.ranks = 2;
      run.job.integrate.steps = steps;
      run.job.integrate.message_bytes = bytes;
      run.job.integrate.disk_bytes = 0;
      run.arguments = integrate_arguments(o, instances, steps, bytes, 0);
      add(std::move(run), alternating(instances, f, s));
    }
  }
  return runs;
}

std::vector<CalibrationRun> testbed_calibration_matrix(const ValidationMatrixOptions& o, const std::string& f,
                                                       const std::string& s) {
  // Each computer calibrated alone, as a user would calibrate the machines of a cluster one at a time:
  // every rank of a calibration run is on one computer, so every validated job (all of them span both)
  // is held out along the computers axis. What crosses the link comes from the probes: the ping-pong's
  // regimes between the two and its timed sends (the send buffer).
  std::vector<CalibrationRun> out;
  auto add = [&](std::string id, std::vector<std::string> hosts, std::vector<std::string> arguments,
                 std::string shape) {
    CalibrationRun c;
    c.id = std::move(id);
    c.ranks = static_cast<int>(hosts.size());
    c.hosts = std::move(hosts);
    c.arguments = std::move(arguments);
    c.shape = std::move(shape);
    out.push_back(std::move(c));
  };
  // LU on one rank at n on both sides of the matrix's 1024 and 1536 and none of them, with the
  // matrix's block widths, the largest n at 128 alone: the kernels' shapes at r = 64 are those of the
  // smaller sizes, and its runs were a tenth of the calibration's time (replayed without them, the
  // recordings of 2026-11-28 kept their figures); at n = 1280 two ranks on the computer's one core
  // (the messages between ranks sharing it, and their hand-off, as in the four-rank mappings).
  const std::vector<int> ns = o.quick ? std::vector<int>{768, 1280} : std::vector<int>{768, 1280, 2048};
  const std::vector<int> shared_rs = o.quick ? std::vector<int>{128} : std::vector<int>{64, 128};
  for (const std::string& c : {f, s}) {
    for (int n : ns) {
      for (int r : n > 1280 ? std::vector<int>{128} : std::vector<int>{64, 128}) {
        add("cal-lu-n" + std::to_string(n) + "-r" + std::to_string(r) + "-" + c, {c},
            lu_arguments(o, n, r, LuVariant::kBasic),
            "lu n=" + std::to_string(n) + " r=" + std::to_string(r) + " one rank on " + c);
      }
    }
    for (int r : shared_rs) {
      add("cal-lu-n1280-r" + std::to_string(r) + "-" + c + c, {c, c}, lu_arguments(o, 1280, r, LuVariant::kBasic),
          "lu n=1280 r=" + std::to_string(r) + " ranks on " + c + "," + c);
    }
    // One integration instance, master and worker on the computer, at step counts on both sides of the
    // matrix's 4·10^6: 2·10^6 steps with 32-byte results, 8·10^6 with 64 KiB. Master and worker share
    // the one core, so no operation is fitted on these runs (the step is the cpu probe's): they tell
    // what the mechanisms miss of an integration (the diagnostics and the intervals' spread); two
    // configurations, not all four pairs, keep the calibration within a tenth of the validation.
    for (auto [steps, bytes] : {std::pair<std::uint64_t, std::uint64_t>{2'000'000, 32}, {8'000'000, 65536}}) {
      add("cal-integrate-1-" + std::to_string(steps) + (bytes == 32 ? "" : "-load") + "-" + c + c, {c, c},
          integrate_arguments(o, 1, steps, bytes, 0),
          "integrate 1 instance, " + std::to_string(steps) + " steps, " + std::to_string(bytes) +
              "-byte results, master and worker on " + c);
    }
  }
  return out;
}

namespace {

// Fisher-Yates with hetperf's own generator: the same order on every platform.
void shuffle(std::vector<std::size_t>& order, Rng& rng) {
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.index(i)]);
}

}  // namespace

std::vector<std::size_t> run_order(std::size_t configurations, int repeats, std::uint64_t seed) {
  return run_order(std::vector<int>(configurations, repeats), seed);
}

std::vector<std::size_t> run_order(const std::vector<int>& repeats, std::uint64_t seed) {
  std::vector<std::size_t> order;
  const int most = repeats.empty() ? 0 : *std::max_element(repeats.begin(), repeats.end());
  for (int k = 0; k < most; ++k) {
    for (std::size_t c = 0; c < repeats.size(); ++c) {
      if (k < repeats[c]) order.push_back(c);
    }
  }
  Rng rng(seed);
  shuffle(order, rng);
  return order;
}

std::vector<std::size_t> imprecise_medians(const std::vector<ValidationRun>& runs, double precision) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& x = runs[i].measured_samples_s;
    if (x.size() < 3) {
      out.push_back(i);
      continue;
    }
    const double m = median(x);
    const auto [lo, hi] = median_ci95(x);
    if (!(m > 0) || std::max(m - lo, hi - m) > precision * m) out.push_back(i);
  }
  return out;
}

std::vector<std::size_t> further_round(const std::vector<std::string>& validated_apps,
                                       const std::vector<std::size_t>& wide,
                                       const std::vector<std::string>& calibration_apps, int repeat,
                                       int calibration_repeat, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::size_t> order = wide;
  std::map<std::string, std::size_t> further;  // app -> its validated runs in this round
  for (std::size_t i : wide) ++further[validated_apps.at(i)];
  for (const auto& [app, k] : further) {
    std::vector<std::size_t> pool;
    for (std::size_t c = 0; c < calibration_apps.size(); ++c) {
      if (calibration_apps[c] == app) pool.push_back(c);
    }
    const auto validated = std::count(validated_apps.begin(), validated_apps.end(), app);
    if (pool.empty() || calibration_repeat <= 0 || repeat <= 0) continue;
    const double expected = static_cast<double>(k) * calibration_repeat * static_cast<double>(pool.size()) /
                            (static_cast<double>(validated) * repeat);
    std::size_t n = static_cast<std::size_t>(std::floor(expected));
    if (rng.uniform01() < expected - std::floor(expected)) ++n;
    n = std::min(n, pool.size());
    for (std::size_t i = 0; i < n; ++i) {
      std::swap(pool[i], pool[i + rng.index(pool.size() - i)]);
      order.push_back(validated_apps.size() + pool[i]);
    }
  }
  shuffle(order, rng);
  return order;
}

Statistics statistics(const std::vector<ValidationRun>& runs, std::uint64_t seed, int resamples) {
  Statistics s;
  std::vector<double> errors, widths, noise;
  std::size_t inside = 0;
  for (const auto& r : runs) {
    if (r.measured_samples_s.empty() || !(r.measured_s > 0)) continue;
    ++s.configurations;
    errors.push_back(r.error());
    if (r.predicted_s > 0) widths.push_back((r.predicted_p90_s - r.predicted_p10_s) / r.predicted_s);
    std::vector<double> deviation;
    for (double x : r.measured_samples_s) {
      ++s.runs;
      inside += x >= r.predicted_p10_s && x <= r.predicted_p90_s;
      deviation.push_back(std::fabs(x - r.measured_s) / r.measured_s);
    }
    noise.push_back(median(deviation));
  }
  if (errors.empty()) return s;
  s.bias = median(errors);
  const auto n = static_cast<double>(errors.size());
  s.within_5 =
      static_cast<double>(std::count_if(errors.begin(), errors.end(), [](double e) { return std::fabs(e) <= 0.05; })) /
      n;
  s.within_10 =
      static_cast<double>(std::count_if(errors.begin(), errors.end(), [](double e) { return std::fabs(e) <= 0.10; })) /
      n;
  s.coverage = static_cast<double>(inside) / static_cast<double>(s.runs);
  s.median_width = median(widths);
  s.noise_floor = median(noise);
  // Bootstrap of the median signed error: configurations resampled with replacement.
  Rng rng(seed);
  std::vector<double> medians, resample(errors.size());
  for (int b = 0; b < resamples; ++b) {
    for (double& e : resample) e = errors[rng.index(errors.size())];
    medians.push_back(median(resample));
  }
  s.bias_low = quantile_nearest_rank(medians, 0.025);
  s.bias_high = quantile_nearest_rank(medians, 0.975);
  return s;
}

nlohmann::json to_json(const Statistics& s) {
  return {{"configurations", s.configurations},
          {"runs", s.runs},
          {"bias", s.bias},
          {"bias_ci95", {s.bias_low, s.bias_high}},
          {"within_5_percent", s.within_5},
          {"within_10_percent", s.within_10},
          {"coverage_80", s.coverage},
          {"median_interval_width", s.median_width},
          {"noise_floor", s.noise_floor}};
}

double ValidationRun::spread() const {
  if (measured_samples_s.size() < 2 || measured_s <= 0) return 0;
  auto [lo, hi] = std::minmax_element(measured_samples_s.begin(), measured_samples_s.end());
  return (*hi - *lo) / measured_s;
}

Accuracy accuracy(const std::vector<ValidationRun>& runs) {
  Accuracy a;
  a.runs = runs.size();
  if (runs.empty()) return a;
  std::size_t in5 = 0, in10 = 0;
  double sum = 0;
  for (const auto& r : runs) {
    double e = std::fabs(r.error());
    in5 += e <= 0.05;
    in10 += e <= 0.10;
    sum += e;
    if (e >= a.max_abs_error) a.max_abs_error = e, a.worst_run = r.id;
  }
  a.within_5 = static_cast<double>(in5) / runs.size();
  a.within_10 = static_cast<double>(in10) / runs.size();
  a.mean_abs_error = sum / runs.size();
  std::vector<double> spreads;
  for (const auto& r : runs) spreads.push_back(r.spread());
  std::sort(spreads.begin(), spreads.end());
  const std::size_t n = spreads.size();
  a.median_spread = median(spreads);
  a.spread_over_10 =
      static_cast<double>(std::count_if(spreads.begin(), spreads.end(), [](double s) { return s > 0.10; })) / n;
  return a;
}

std::string validation_csv(const std::vector<ValidationRun>& runs) {
  CsvWriter csv(
      "id,group,app,ranks,n,r,variant,remove,after_iteration,processes,message_bytes,disk_bytes,steps,"
      "measured_s,predicted_s,error,samples");
  for (const auto& r : runs) {
    const AppJob& j = r.job;
    const bool lu = j.kind == AppJob::Kind::kLu;
    csv << r.id << r.group << (lu ? "lu" : "integrate") << r.ranks;
    if (lu) {
      csv << j.lu.n << j.lu.r << to_string(j.lu.variant) << j.lu.remove << j.lu.remove_after_iteration;
      csv.blank().blank().blank().blank();
    } else {
      csv.blank().blank().blank().blank().blank();
      csv << j.instances << j.integrate.message_bytes << j.integrate.disk_bytes << j.integrate.steps;
    }
    std::string samples;
    for (std::size_t k = 0; k < r.measured_samples_s.size(); ++k)
      samples += (k ? ";" : "") + csv_number(r.measured_samples_s[k]);
    csv << r.measured_s << r.predicted_s << r.error() << samples;
    csv.end_row();
  }
  return csv.str();
}

std::string validation_markdown(const std::vector<ValidationRun>& runs, const std::string& command,
                                const nlohmann::json& facts) {
  std::ostringstream os;
  Accuracy all = accuracy(runs);
  os << "# Validation: predicted against measured\n\n";
  os << "Command: `" << command << "`\n\n";
  if (facts.is_object()) {
    for (const auto& [k, v] : facts.items())
      os << "- " << k << ": " << (v.is_string() ? v.get<std::string>() : v.dump()) << "\n";
    os << "\n";
  }
  os << "## Accuracy\n\n";
  os << all.runs << " runs: **" << percent(all.within_5) << " within ±5%**, **" << percent(all.within_10)
     << " within ±10%** (target: 60% and 90%); mean |error| " << percent(all.mean_abs_error) << ", worst "
     << percent(all.max_abs_error) << " (" << all.worst_run << ").\n\n";
  os << "Noise floor: the repeats of one run spread by " << percent(all.median_spread)
     << " (median of (max − min) / median); the repeats alone of " << percent(all.spread_over_10)
     << " of the runs span more than ±5% of their median.\n\n";
  os << "| group | runs | within ±5% | within ±10% | mean abs error | worst |\n|---|---|---|---|---|---|\n";
  std::map<std::string, std::vector<ValidationRun>> groups;
  for (const auto& r : runs) groups[r.group].push_back(r);
  for (const auto& [g, list] : groups) {
    Accuracy a = accuracy(list);
    os << "| " << g << " | " << a.runs << " | " << percent(a.within_5) << " | " << percent(a.within_10) << " | "
       << percent(a.mean_abs_error) << " | " << percent(a.max_abs_error) << " " << a.worst_run << " |\n";
  }
  std::vector<const ValidationRun*> sorted;
  for (const auto& r : runs) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ValidationRun* a, const ValidationRun* b) {
    return std::fabs(a->error()) > std::fabs(b->error());
  });
  os << "\n## Worst runs\n\n| run | ranks | measured s | predicted s | error |\n|---|---|---|---|---|\n";
  for (std::size_t k = 0; k < std::min<std::size_t>(10, sorted.size()); ++k) {
    const auto& r = *sorted[k];
    os << "| " << r.id << " | " << r.ranks << " | " << fixed(r.measured_s, 4) << " | " << fixed(r.predicted_s, 4)
       << " | " << percent(r.error()) << " |\n";
  }
  os << "\n## Every run\n\n| run | group | ranks | measured s (median) | samples | spread | predicted s | error |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : runs) {
    os << "| " << r.id << " | " << r.group << " | " << r.ranks << " | " << fixed(r.measured_s, 4) << " | "
       << r.measured_samples_s.size() << " | " << percent(r.spread()) << " | " << fixed(r.predicted_s, 4) << " | "
       << percent(r.error()) << " |\n";
  }
  os << "\nPictures: errors-histogram.png (the DPS paper's Figure 13), measured-vs-predicted.png, "
        "efficiency-removal.png (Figures 11-12), integration-curve.png (Tables 3 and 7).\n";
  return os.str();
}

std::string Picture::script(const std::filesystem::path& output) const {
  GnuplotScript gp;
  gp.terminal("pngcairo", 900, 600, "noenhanced font 'sans,10'").output(output) << "set grid\n" << body;
  return gp.text();
}

namespace {

// `plot a, b, ...`, or a placeholder curve titled `none` when there is nothing to draw.
void plot(GnuplotScript& gp, std::vector<std::string> curves, std::string_view none) {
  if (curves.empty()) curves.push_back("0 title " + gnuplot_quoted(none));
  gp << "plot ";
  for (std::size_t i = 0; i < curves.size(); ++i) gp << (i ? ", " : "") << curves[i];
  gp << "\n";
}

}  // namespace

std::vector<Picture> validation_pictures(const std::vector<ValidationRun>& runs) {
  std::vector<Picture> out;
  {
    // Histogram of signed errors in 1% bins (the DPS paper's Figure 13).
    std::map<int, int> bins;
    for (const auto& r : runs) bins[static_cast<int>(std::floor(100 * r.error()))]++;
    std::ostringstream rows;
    for (const auto& [b, n] : bins) rows << b + 0.5 << ' ' << n << '\n';
    GnuplotScript gp;
    gp << "set title "
       << gnuplot_quoted("Prediction error of " + std::to_string(runs.size()) +
                         " runs (predicted - measured) / measured")
       << "\nset xlabel 'error (%)'\nset ylabel 'runs'\nset style fill solid 0.6\nset boxwidth 0.9\n";
    gp.datablock("d", rows.str());
    gp << "plot $d using 1:2 with boxes title 'runs per 1% bin'\n";
    out.push_back({"errors-histogram.png", gp.text()});
  }
  {
    GnuplotScript gp;
    gp << "set title 'Measured against predicted time'\nset xlabel 'measured (s)'\nset ylabel 'predicted (s)'\n"
          "set logscale xy\nset key left top\n";
    std::map<std::string, std::vector<const ValidationRun*>> groups;
    double lo = 1e300, hi = 0;
    for (const auto& r : runs) {
      groups[r.group].push_back(&r);
      if (r.measured_s > 0)
        lo = std::min({lo, r.measured_s, r.predicted_s}), hi = std::max({hi, r.measured_s, r.predicted_s});
    }
    std::vector<std::string> curves;
    for (const auto& [g, list] : groups) {
      std::ostringstream rows;
      for (const auto* r : list) rows << r->measured_s << ' ' << r->predicted_s << '\n';
      const std::string name = "g" + std::to_string(curves.size());
      gp.datablock(name, rows.str());
      curves.push_back("$" + name + " using 1:2 with points pt 7 title " + gnuplot_quoted(g));
    }
    if (hi <= 0) lo = 0.1, hi = 1;
    gp << "set xrange [" << lo / 1.5 << ":" << hi * 1.5 << "]\nset yrange [" << lo / 1.5 << ":" << hi * 1.5 << "]\n";
    curves.push_back("x with lines lc rgb 'black' title 'exact'");
    curves.push_back("1.05*x with lines dt 2 lc rgb 'gray' title '+5%'");
    curves.push_back("0.95*x with lines dt 2 lc rgb 'gray' title '-5%'");
    plot(gp, curves, "");
    out.push_back({"measured-vs-predicted.png", gp.text()});
  }
  {
    GnuplotScript gp;
    gp << "set title 'Dynamic efficiency per LU iteration, node removal runs'\nset xlabel 'iteration'\n"
          "set ylabel 'efficiency'\nset yrange [0:1.05]\nset key outside right\n";
    std::vector<std::string> curves;
    for (const auto& r : runs) {
      if (r.group != "lu-removal") continue;
      for (const bool measured : {true, false}) {
        const auto& its = measured ? r.measured_iterations : r.predicted_iterations;
        std::ostringstream rows;
        for (const auto& it : its) rows << it.value("iteration", 0) << ' ' << it.value("efficiency", 0.0) << '\n';
        const std::string name = "e" + std::to_string(curves.size());
        gp.datablock(name, rows.str());
        curves.push_back("$" + name + " using 1:2 with linespoints " + (measured ? "pt 7" : "dt 2 pt 6") + " title " +
                         gnuplot_quoted(r.id + (measured ? " measured" : " predicted")));
      }
    }
    plot(gp, curves, "no removal runs");
    out.push_back({"efficiency-removal.png", gp.text()});
  }
  {
    GnuplotScript gp;
    gp << "set title 'Integration: average response time against processes'\nset xlabel 'concurrent processes'\n"
          "set ylabel 'average response time (s)'\nset key left top\n";
    std::vector<std::string> curves;
    for (const char* group : {"integrate", "integrate-load"}) {
      std::ostringstream rows;
      int points = 0;
      for (const auto& r : runs) {
        if (r.group != group) continue;
        rows << r.job.instances << ' ' << r.measured_s << ' ' << r.predicted_s << '\n';
        ++points;
      }
      if (!points) continue;
      const std::string name = "i" + std::string(group == std::string("integrate") ? "0" : "1");
      gp.datablock(name, rows.str());
      curves.push_back("$" + name + " using 1:2 with linespoints pt 7 title " +
                       gnuplot_quoted(std::string(group) + " measured"));
      curves.push_back("$" + name + " using 1:3 with linespoints dt 2 pt 6 title " +
                       gnuplot_quoted(std::string(group) + " predicted"));
    }
    plot(gp, curves, "no integration runs");
    out.push_back({"integration-curve.png", gp.text()});
  }
  // Per group: every configuration's measured runs as a box (quartiles, whiskers to the extremes),
  // the predicted 80% interval and median beside it, times relative to the measured median.
  std::map<std::string, std::vector<const ValidationRun*>> by_group;
  for (const auto& r : runs) {
    if (!r.measured_samples_s.empty() && r.measured_s > 0) by_group[r.group].push_back(&r);
  }
  for (const auto& [group, list] : by_group) {
    std::ostringstream rows;
    std::ostringstream tics;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const ValidationRun& r = *list[i];
      auto rel = [&](double v) { return v / r.measured_s; };
      const auto& x = r.measured_samples_s;
      rows << i << ' ' << rel(quantile_nearest_rank(x, 0.25)) << ' ' << rel(*std::min_element(x.begin(), x.end()))
           << ' ' << rel(*std::max_element(x.begin(), x.end())) << ' ' << rel(quantile_nearest_rank(x, 0.75)) << ' '
           << 1.0 << ' ' << rel(r.predicted_s) << ' ' << rel(r.predicted_p10_s) << ' ' << rel(r.predicted_p90_s)
           << '\n';
      tics << (i ? ", " : "") << gnuplot_quoted(r.id) << ' ' << i;
    }
    GnuplotScript gp;
    gp << "set title "
       << gnuplot_quoted(group + ": measured runs (boxes) and predicted 80% intervals, relative to the measured median")
       << "\nset ylabel 'time / measured median'\nset xtics rotate by -40 (" << tics.str()
       << ")\nset xrange [-0.7:" << list.size() - 0.3 << "]\nset boxwidth 0.3\nset key top left\nset bmargin 12\n";
    gp.datablock("b", rows.str());
    gp << "plot $b using ($1-0.18):2:3:4:5 with candlesticks whiskerbars lc rgb '#2166ac' title 'measured (quartiles, "
          "extremes)', "
          "$b using ($1-0.18):6:6:6:6 with candlesticks lc rgb '#2166ac' notitle, "
          "$b using ($1+0.18):7:8:9 with yerrorbars pt 7 lc rgb '#b2182b' title 'predicted median, 80% interval', "
          "1 with lines dt 2 lc rgb 'gray' notitle\n";
    out.push_back({"distributions-" + group + ".png", gp.text()});
  }
  return out;
}

}  // namespace hetperf::validate
