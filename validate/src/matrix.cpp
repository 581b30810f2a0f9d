// The validation matrix: the configurations, their command lines and held-out axes (see matrix.hpp).
#include "hetperf/validate/matrix.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "hetperf/model/error.hpp"

namespace hetperf::validate {
using namespace apps;
namespace {

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

double ValidationRun::spread() const {
  if (measured_samples_s.size() < 2 || measured_s <= 0) return 0;
  auto [lo, hi] = std::minmax_element(measured_samples_s.begin(), measured_samples_s.end());
  return (*hi - *lo) / measured_s;
}

}  // namespace hetperf::validate
