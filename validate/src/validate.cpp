// The validate stage (see validate.hpp): the real runs, their predictions, and the reports.
#include "hetperf/validate/validate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "hetperf/calibrate/contention.hpp"
#include "hetperf/calibrate/eager_limit.hpp"
#include "hetperf/calibrate/local_line.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/calibrate/trace_fit.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/process.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/net_probe.hpp"
#include "hetperf/probes/probe_suite.hpp"
#include "hetperf/validate/real_runs.hpp"
#include "hetperf/validate/reports.hpp"
#include "hetperf/validate/run_order.hpp"
#include "hetperf/validate/testbed.hpp"
#include "clock.hpp"
#include "text.hpp"

namespace hetperf::validate {
namespace {

namespace fs = std::filesystem;
using apps::AppJob;

using text::percent;

// The summary line a program prints last ({"app", "config", "summary", "usage"}).
nlohmann::json last_json_line(const std::string& output, const std::string& command) {
  auto end = output.find_last_not_of('\n');
  auto begin = output.rfind('\n', end);
  std::string line =
      output.substr(begin == std::string::npos ? 0 : begin + 1, end == std::string::npos ? 0 : end - begin);
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object())
    throw EnvironmentError("validate: `" + command + "` printed no JSON summary (last line: '" + line + "')");
  return j;
}

class Runner {
 public:
  explicit Runner(const ValidateOptions& o) : o_(o) {}

  // Ranks placed on a testbed's computers go through MPICH's hydra and hetperf's launcher, which
  // finds the computers in `state_dir`.
  void use_testbed(std::string launcher, std::string state_dir) {
    launcher_ = std::move(launcher);
    state_dir_ = std::move(state_dir);
  }

  std::vector<std::string> launch(int ranks, const std::vector<std::string>& args,
                                  const std::vector<std::string>& hosts = {}) const {
    std::vector<std::string> argv = {"timeout", std::to_string(o_.timeout_s)};
    if (!hosts.empty()) {
      std::string list;
      for (const auto& h : hosts) list += (list.empty() ? "" : ",") + h;
      argv.insert(argv.end(), {"env", "HETPERF_TESTBED_STATE_DIR=" + state_dir_, o_.mpiexec, "-launcher", "rsh",
                               "-launcher-exec", launcher_, "-hosts", list});
    } else {
      argv.push_back(o_.mpiexec);
    }
    argv.insert(argv.end(), {"-n", std::to_string(ranks)});
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  // One launch of `mpiexec -n ranks args...` to its end; its summary line.
  nlohmann::json run(int ranks, const std::vector<std::string>& args,
                     const std::vector<std::string>& hosts = {}) const {
    const auto argv = launch(ranks, args, hosts);
    CommandResult r = probes::run_capturing_stdout(argv);
    if (r.status != 0) {
      throw EnvironmentError("validate: `" + display_command(argv) + "` failed with exit status " +
                             std::to_string(r.status) + (r.status == 124 ? " (timed out)" : ""));
    }
    return last_json_line(r.output, display_command(argv));
  }

  // `copies` launches at once (the shell starts them together and waits for all); their summaries.
  // Each copy writes into a file of its own, printed whole once all are done: through one shared pipe
  // the launchers' forwarded output interleaved mid-line now and then, and no summary parsed.
  std::vector<nlohmann::json> run_concurrently(int copies, int ranks, const std::vector<std::string>& args) const {
    if (copies == 1) return {run(ranks, args)};
    const std::string one = display_command(launch(ranks, args));
    std::string script = "d=$(mktemp -d) || exit 1; trap 'rm -rf \"$d\"' EXIT; trap 'exit 130' INT TERM; ";
    for (int c = 0; c < copies; ++c) script += one + " >\"$d/" + std::to_string(c) + "\" & ";
    script += "wait; for f in \"$d\"/*; do cat \"$f\"; echo; done";
    CommandResult r = probes::run_capturing_stdout({"sh", "-c", script});
    std::vector<nlohmann::json> out;
    std::size_t pos = 0;
    while (pos < r.output.size()) {
      std::size_t nl = r.output.find('\n', pos);
      auto j = nlohmann::json::parse(r.output.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos),
                                     nullptr, false);
      pos = nl == std::string::npos ? r.output.size() : nl + 1;
      if (j.is_object() && j.contains("summary")) out.push_back(j);
    }
    if (static_cast<int>(out.size()) != copies) {
      throw EnvironmentError("validate: " + std::to_string(copies) + " concurrent runs of `" + one + "` gave " +
                             std::to_string(out.size()) + " results");
    }
    return out;
  }

 private:
  const ValidateOptions& o_;
  std::string launcher_, state_dir_;
};

// The matrix's predictions need every probe a validation runs: a skipped one ends the validation
// after the probes, with the probe's reason, rather than at the prediction with a field missing from a
// profile the user did not write.
void require_every_probe(const Measurement& m, const fs::path& file) {
  if (m.skipped.empty()) return;
  throw EnvironmentError("validate: the " + m.skipped.front().probe + " probe could not run (" +
                         m.skipped.front().reason + "); its measurement is in " + file.string());
}

// Probes this machine (cpu with the matrix's kernel shapes, disk, net) and calibrates it into `dir`,
// through the probes and calibrate libraries.
fs::path probe_and_calibrate(const ValidateOptions& o, const fs::path& dir) {
  probes::SuiteOptions s = probes::SuiteOptions::quick();
  s.only = {"cpu", "disk", "net"};
  s.command = o.command;
  s.cpu.kernel.blocks.clear();
  for (int b : validation_kernel_blocks(o.quick)) s.cpu.kernel.blocks.push_back(b);
  s.cpu.kernel.lu_rows = validation_lu_rows(o.quick, kMatrixCacheBytes);
  s.disk.directory = dir.string();
  if (o.quick) {
    // The validation reads the disk's write rate (integration writing 1 MiB a process, a few ms of its
    // runs), and no fit reads the buffer sweep: the quick probe's 5 s a figure and its sweep were 20 s
    // of the quick validation's 150.
    s.disk.repeat.time_cap_s = 1.5;
    s.disk.sweep_buffers_bytes.clear();
  }
  s.net.mpiexec = o.mpiexec;
  if (auto e = s.cpu.kernel.validate(); !e.empty()) throw InputError("validate: kernel options: " + e);
  std::fprintf(stderr,
               "validate: probing this machine (cpu with its kernels compact and at the LU's shapes in %llu rows; "
               "disk, net)\n",
               static_cast<unsigned long long>(s.cpu.kernel.lu_rows));
  Measurement m = probes::run_probe_suite(s, {});
  probes::throw_if_interrupted();
  const fs::path measurement = dir / "measurement.json", profile = dir / "profile.json";
  write_json_file(measurement, to_json(m));
  require_every_probe(m, measurement);
  calibrate::Calibration cal = calibrate::calibrate_platform({calibrate::load_measurement(measurement)}, {o.command});
  write_json_file(profile, to_json(cal.profile));
  return profile;
}

// A testbed brought up for a validation and taken down when it ends, also on an error or a SIGINT
// (after a kill -9, `hetperf testbed down` with the same state directory removes it).
struct TestbedSession {
  TestbedSpec spec;
  TestbedOptions options;
  bool up = false;
  std::size_t fast = 0, slow = 1;  // the two computers the matrix runs across

  TestbedSession() = default;
  TestbedSession(const TestbedSession&) = delete;
  TestbedSession& operator=(const TestbedSession&) = delete;
  ~TestbedSession() { down(); }

  void down() {
    if (!up) return;
    up = false;
    try {
      const TestbedDownSummary d = testbed_down(spec.name, options);
      for (const auto& p : d.problems) std::fprintf(stderr, "validate: testbed down: %s\n", p.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "validate: testbed down failed: %s (run `hetperf testbed --state-dir %s down --name %s`)\n",
                   e.what(), options.state_dir.c_str(), spec.name.c_str());
    }
  }
  const std::string& fast_name() const { return spec.computers[fast].name; }
  const std::string& slow_name() const { return spec.computers[slow].name; }
};

// The fastest computer (CPU share times cores; the first on a tie) and the slowest other one.
void choose_fast_and_slow(TestbedSession& t, const std::string& file) {
  const auto& cs = t.spec.computers;
  if (cs.size() < 2) {
    throw InputError("validate: " + file +
                     ": $.computers: expected at least two computers (the matrix runs across two), got " +
                     std::to_string(cs.size()));
  }
  auto capacity = [&](std::size_t i) { return cs[i].cpu_share * static_cast<double>(cs[i].cores.size()); };
  t.fast = 0;
  for (std::size_t i = 1; i < cs.size(); ++i) {
    if (capacity(i) > capacity(t.fast)) t.fast = i;
  }
  t.slow = t.fast == 0 ? 1 : 0;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (i != t.fast && capacity(i) < capacity(t.slow)) t.slow = i;
  }
}

// The host's loopback ping-pong beside a testbed's measurements (probe_and_calibrate_testbed).
constexpr const char* kHostLoopbackFile = "measurement-host.json";

// The one-core testbed computers' local message line and eager limit from the host's loopback
// ping-pong in `dir`; nothing where it was not measured (recordings from before it have none).
void use_host_local_line(const fs::path& dir, std::initializer_list<Profile*> profiles) {
  const fs::path file = dir / kHostLoopbackFile;
  if (!fs::exists(file)) return;
  const Measurement host = read_measurement(file);
  const auto line = calibrate::local_line_from_pingpong(host, file.filename().string());
  if (!line) return;
  const auto eager = calibrate::eager_limit_from_pingpong(*host.net, file.filename().string());
  for (Profile* p : profiles) calibrate::use_local_line(*p, *line, eager);
}

// The ping-pong's sizes on a testbed: dense enough between 8 KiB and 4 MiB that the fit tells the large
// messages' regime from the small ones'. With 0, 32, 1 KiB, 32 KiB, 256 KiB, 1 MiB and 4 MiB, one
// run's fit merged them into one line of 106.8 Mbit/s on the 100 Mbit/s link (its 4 MiB messages got
// 95.8); with these sizes the large messages' regime came out at 96.6.
constexpr const char* kTestbedPingPongSizes = "0,32,1024,8192,32768,65536,131072,262144,524288,1048576,2097152,4194304";

// Probes the testbed's two computers inside them (cpu with the kernels at the LU's shapes; the MPI
// ping-pong from each to the other, through the shaped links) and calibrates one profile of both
// into `dir`. Records the ground truth the spec set against what the profile recovered in `facts`.
fs::path probe_and_calibrate_testbed(const ValidateOptions& o, const TestbedSession& t, const std::string& bin,
                                     const fs::path& dir, nlohmann::json& facts) {
  std::vector<calibrate::CalibrationInput> inputs;
  std::string blocks;
  for (int b : validation_kernel_blocks(true)) blocks += (blocks.empty() ? "" : ",") + std::to_string(b);
  for (std::size_t i : {t.fast, t.slow}) {
    const std::string& c = t.spec.computers[i].name;
    const std::string& peer = t.spec.computers[i == t.fast ? t.slow : t.fast].name;
    const fs::path file = dir / ("measurement-" + c + ".json");
    const std::vector<std::string> argv = {bin + "/hetperf",
                                           "testbed",
                                           "--state-dir",
                                           o.testbed_state_dir,
                                           "exec",
                                           "--testbed",
                                           t.spec.name,
                                           c,
                                           "--",
                                           "env",
                                           "HYDRA_LAUNCHER=rsh",
                                           "HYDRA_LAUNCHER_EXEC=" + bin + "/hetperf-testbed-launcher",
                                           "HETPERF_TESTBED_STATE_DIR=" + o.testbed_state_dir,
                                           bin + "/hetperf",
                                           "probe",
                                           "--quick",
                                           "--only",
                                           "cpu,net",
                                           "--hosts",
                                           c + "," + peer,
                                           "--mpiexec",
                                           o.mpiexec,
                                           "--sizes",
                                           kTestbedPingPongSizes,
                                           "--blocks",
                                           blocks,
                                           "--lu-rows",
                                           std::to_string(validation_lu_rows(false, kMatrixCacheBytes)),
                                           "--machine",
                                           c,
                                           "-o",
                                           file.string()};
    std::fprintf(stderr, "validate: probing testbed computer %s inside it (cpu; net to %s)\n", c.c_str(), peer.c_str());
    const CommandResult r = probes::run_capturing_stdout(argv);
    probes::throw_if_interrupted();
    if (r.status != 0) {
      throw EnvironmentError("validate: `" + display_command(argv) + "` failed with exit status " +
                             std::to_string(r.status));
    }
    inputs.push_back(calibrate::load_measurement(file));
    require_every_probe(inputs.back().measurement, file);
  }
  // Messages between two ranks of one computer stay inside the host, through its loopback with the
  // testbed's transport (TCP); with one core each, no computer can time them without its ranks
  // waiting for the core, so they come from the host's own loopback ping-pong with that transport
  // (calibrate/local_line.hpp), and so does their eager limit (calibrate/eager_limit.hpp).
  const fs::path host = dir / kHostLoopbackFile;
  std::vector<std::string> loopback = {"env"};
  for (const auto& [name, value] : testbed_mpi_environment()) loopback.push_back(name + "=" + value);
  const std::vector<std::string> probe = {
      bin + "/hetperf",      "probe",     "--quick", "--only",    "net",  "--no-loggp", "--no-handoff", "--sizes",
      kTestbedPingPongSizes, "--mpiexec", o.mpiexec, "--machine", "host", "-o",         host.string()};
  loopback.insert(loopback.end(), probe.begin(), probe.end());
  std::fprintf(stderr, "validate: the host's loopback ping-pong (the computers' local messages)\n");
  if (const CommandResult r = probes::run_capturing_stdout(loopback); r.status != 0) {
    throw EnvironmentError("validate: `" + display_command(loopback) + "` failed with exit status " +
                           std::to_string(r.status));
  }
  probes::throw_if_interrupted();
  const fs::path profile = dir / "profile.json";
  calibrate::Calibration cal = calibrate::calibrate_platform(inputs, {o.command});
  write_json_file(profile, to_json(cal.profile));
  // Ground truth: capacity relative to the fast computer against the CPU caps, bandwidth against the
  // slower tbf rate of the pair.
  const Profile& p = cal.profile;
  const auto& fc = t.spec.computers[t.fast];
  const auto& sc = t.spec.computers[t.slow];
  const double expected = sc.cpu_share / fc.cpu_share;
  const double measured = p.computers[*p.find(sc.name)].mips / p.computers[*p.find(fc.name)].mips;
  facts["testbed capacity " + sc.name + "/" + fc.name] = {{"cpu caps", expected}, {"calibrated MIPS ratio", measured}};
  std::fprintf(stderr, "validate: ground truth: capacity %s/%s %.3f (CPU caps %.3f)\n", sc.name.c_str(),
               fc.name.c_str(), measured, expected);
  // The bandwidth large messages get: the slope of the largest messages' regime (the one-line fit over
  // all sizes bends to the small messages' times, which the capped computer's throttling inflates),
  // and each probe's own figure (its largest message over its one-way time, TCP payload).
  for (const auto& pair : p.network.pairs) {
    const double rate = std::min(fc.link.rate_mbit, sc.link.rate_mbit);
    const double mbit = pair.regimes.empty() || !(pair.regimes.back().seconds_per_byte > 0)
                            ? pair.bandwidth_bytes_per_s * 8 / 1e6
                            : 8 / pair.regimes.back().seconds_per_byte / 1e6;
    nlohmann::json entry = {{"tbf rate", rate}, {"calibrated, largest messages' regime", mbit}};
    std::string probes;
    for (const auto& input : inputs) {
      if (input.measurement.net && input.measurement.net->bandwidth_bytes_per_s) {
        const double probe_mbit = *input.measurement.net->bandwidth_bytes_per_s * 8 / 1e6;
        entry["probe from " + input.measurement.machine] = probe_mbit;
        probes += (probes.empty() ? "" : ", ") + text::fixed(probe_mbit, 1) + " from " + input.measurement.machine;
      }
    }
    facts["testbed bandwidth " + pair.hosts[0] + "<->" + pair.hosts[1] + ", Mbit/s"] = entry;
    std::fprintf(stderr,
                 "validate: ground truth: bandwidth %s<->%s (tbf %.0f Mbit/s): probes %s Mbit/s; the calibrated "
                 "largest messages' regime %.1f Mbit/s\n",
                 pair.hosts[0].c_str(), pair.hosts[1].c_str(), rate, probes.empty() ? "none" : probes.c_str(), mbit);
  }
  return profile;
}

// The scheduler's slice the cpu probe measured, as calibrate records it in a computer's fits
// (fits.communication_cpu.time_slice_s.slice_s); 0 when none is recorded, or it is not a slice.
double recorded_slice(const Computer& c) {
  if (!c.fits.contains("communication_cpu") || !c.fits["communication_cpu"].contains("time_slice_s")) return 0;
  const nlohmann::json& f = c.fits["communication_cpu"]["time_slice_s"];
  if (!f.is_object() || !f.contains("slice_s") || !f["slice_s"].is_number()) return 0;
  const double slice = f["slice_s"].get<double>();
  return slice >= TimeSliceMeasurement::kMinSliceS && slice <= TimeSliceMeasurement::kMaxSliceS ? slice : 0;
}

// Each computer's hand-off and time slice from its recorded fan-out periods and scheduler slice (the
// profile's fits, as profile_builder records them), so that a replay applies this version's
// handoff_from_fanout, hand-off slice and time-sliced cores; recordings without them keep their values.
void handoff_from_recorded_probes(Profile& profile) {
  for (auto& c : profile.computers) {
    if (const double slice = recorded_slice(c); slice > 0) c.handoff_slice_s = c.time_slice_s = slice;
    if (!c.fits.contains("communication_cpu") || !c.fits["communication_cpu"].contains("handoff_s")) continue;
    const nlohmann::json& f = c.fits["communication_cpu"]["handoff_s"];
    if (f.value("source", "") != "$.probes.net.handoff" || !f.contains("period_oversubscribed_s")) continue;
    const int cores = f.value("cores", 1);
    const std::optional<double> at_cores =
        f.contains("period_at_cores_s") ? std::optional<double>(f["period_at_cores_s"].get<double>()) : std::nullopt;
    c.oversubscribed_handoff_s = handoff_from_fanout(cores, at_cores, f["period_oversubscribed_s"].get<double>());
  }
}

// The point prediction of every run from the probes' profile alone (the papers' method), into
// ValidationRun::probe_only_s; a profile that cannot predict them (a figure the probes did not
// measure) is noted in `facts` instead.
void predict_probe_only(const Profile& probes, const std::string& profile_file, const std::vector<AppJob>& jobs,
                        std::vector<ValidationRun>& runs, nlohmann::json& facts) {
  try {
    const apps::SimPlatform platform =
        apps::sim_platform_from_profile(probes, profile_file, apps::kernels_needed(jobs));
    for (auto& r : runs) r.probe_only_s = apps::predict_app_jobs(platform, probes, {r.job}, false).jobs.front().time_s;
  } catch (const InputError& e) {
    facts["probes-only predictions"] = std::string("none: ") + e.what();
  }
}

// The profile with the other model of an oversubscribed computer: its slices removed (processor
// sharing with the hand-off) when it applies time-sliced cores, the slice its cpu probe measured
// applied to every computer that records one when it applies none (a profile of an older calibrate).
// Returns the model's name, empty when there is no other (no slice applied or recorded); `slice`:
// the first computer's slice applied there, 0 for processor sharing.
std::string alternative_profile(Profile& profile, double& slice) {
  slice = 0;
  bool applied = false;
  for (auto& c : profile.computers) applied = applied || c.time_slice_s > 0;
  if (applied) {
    for (auto& c : profile.computers) c.time_slice_s = 0;
    return "processor sharing";
  }
  for (auto& c : profile.computers) {
    c.time_slice_s = recorded_slice(c);
    if (slice == 0) slice = c.time_slice_s;
  }
  return slice > 0 ? "time-sliced " + text::fixed(1000 * slice, 1) + " ms" : "";
}

// Every run's sampled prediction by the other processor model (alternative_profile), into
// ValidationRun::alternative_*, with the default predictions' seeds; the model's name (empty: none,
// nothing done).
std::string predict_alternative(Profile profile, std::vector<ValidationRun>& runs, const ValidateOptions& o,
                                double& slice) {
  const std::string model = alternative_profile(profile, slice);
  if (model.empty()) return model;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& r = runs[i];
    const apps::SampledAppJobs sampled =
        apps::sample_app_jobs(profile, {r.job}, static_cast<std::size_t>(o.samples), o.seed + i);
    const std::vector<double>& x = sampled.time_s.front();
    r.alternative_s = median(sampled.typical_s.front());
    r.alternative_p10_s = quantile_nearest_rank(x, 0.10);
    r.alternative_p90_s = quantile_nearest_rank(x, 0.90);
  }
  return model;
}

// The runs of a recorded validation, rebuilt from their commands (the matrix of another version may
// differ from this one's), with their measurements; on `computer` unless recorded on a testbed's.
std::vector<ValidationRun> recorded_runs(const nlohmann::json& doc, const std::string& file, std::size_t computer) {
  const JsonNode root(doc, file);
  std::vector<ValidationRun> out;
  for (const JsonNode& r : root.array("runs", 1)) {
    ValidationRun run;
    run.id = r.string("id");
    run.group = r.string("group");
    run.ranks = static_cast<int>(r.integer("ranks", 1, 1 << 20));
    for (const JsonNode& a : r.array("command", 1)) run.arguments.push_back(a.as_string());
    std::map<std::string, std::string> option;
    for (std::size_t i = 1; i + 1 < run.arguments.size(); i += 2) option[run.arguments[i]] = run.arguments[i + 1];
    auto number = [&](const char* key, long fallback) { return option.count(key) ? std::stol(option[key]) : fallback; };
    AppJob& job = run.job;
    job.name = run.id;
    if (fs::path(run.arguments.front()).filename() == "hetperf-lu") {
      job.kind = AppJob::Kind::kLu;
      job.ranks = run.ranks;
      job.lu.n = static_cast<int>(number("--n", 0)), job.lu.r = static_cast<int>(number("--r", 0));
      job.lu.variant = apps::parse_lu_variant(option.count("--variant") ? option["--variant"] : "basic");
      job.lu.remove = static_cast<int>(number("--remove", 0));
      job.lu.remove_after_iteration = job.lu.remove ? static_cast<int>(number("--after-iteration", -1)) : -1;
      if (const std::string e = job.lu.validate(run.ranks); !e.empty())
        r.field("command").fail("a valid LU run (" + e + ")");
    } else {
      job.kind = AppJob::Kind::kIntegrate;
      job.instances = static_cast<int>(number("--instances", 1));
      job.ranks = 2;
      job.integrate.steps = static_cast<std::uint64_t>(number("--steps", 1));
      job.integrate.message_bytes = static_cast<std::uint64_t>(number("--message-bytes", 32));
      job.integrate.disk_bytes = static_cast<std::uint64_t>(number("--disk-bytes", 0));
    }
    job.mapping.assign(static_cast<std::size_t>(run.ranks), computer);
    for (const JsonNode& x : r.array("samples_s", 1)) run.measured_samples_s.push_back(x.as_number(Range::kPositive));
    if (auto it = r.optional("measured_iterations")) run.measured_iterations = it->value();
    out.push_back(std::move(run));
  }
  return out;
}

// The pictures drawn into `outputs` (draw_pictures), or why there are none.
void draw(const std::vector<Picture>& pictures, const fs::path& dir, OutputSet& outputs, ValidateSummary& summary) {
  if (auto drawn = draw_pictures(pictures, dir, outputs))
    summary.written.insert(summary.written.end(), drawn->begin(), drawn->end());
  else
    summary.pictures_skipped = "gnuplot not found on PATH: no pictures (install gnuplot-nox)";
}

}  // namespace

bool ValidateOptions::is_valid(std::string* error) const {
  if (out.empty()) return *error = "out: expected a directory for the results, got none", false;
  if (repeat < 0 || repeat > 100)
    return *error = "repeat: expected 1 to 100 runs per configuration, got " + std::to_string(repeat), false;
  if (calibration_repeat < -1 || calibration_repeat > 100) {
    return *error = "calibration_repeat: expected 0 to 100 runs per calibration configuration (-1: the default), got " +
                    std::to_string(calibration_repeat),
           false;
  }
  if (max_repeat < 0 || max_repeat > 1000)
    return *error = "max_repeat: expected 0 to 1000 runs per configuration, got " + std::to_string(max_repeat), false;
  if (!(median_precision > 0))
    return *error = "median_precision: expected a positive fraction, got " + std::to_string(median_precision), false;
  if (!(further_budget_s >= 0 && further_budget_s <= 1e7))
    return *error = "further_budget_s: expected 0 to 1e7 s, got " + std::to_string(further_budget_s), false;
  if (samples < 1 || samples > 100000)
    return *error = "samples: expected 1 to 100000, got " + std::to_string(samples), false;
  if (!(max_bias > 0)) return *error = "max_bias: expected a positive fraction, got " + std::to_string(max_bias), false;
  if (!(min_coverage >= 0 && min_coverage <= 1))
    return *error = "min_coverage: expected a fraction in [0, 1], got " + std::to_string(min_coverage), false;
  if (!(max_error > 0))
    return *error = "max_error: expected a positive fraction, got " + std::to_string(max_error), false;
  if (timeout_s < 1 || timeout_s > 86400)
    return *error = "timeout_s: expected 1 to 86400 s, got " + std::to_string(timeout_s), false;
  if (mpiexec.empty()) return *error = "mpiexec: expected a launcher, got none", false;
  return true;
}

std::string ValidateSummary::brief_report() const {
  return "validation: " + std::to_string(accuracy.runs) + " runs, " + percent(accuracy.within_5) + " within ±5%, " +
         percent(accuracy.within_10) + " within ±10%, mean |error| " + percent(accuracy.mean_abs_error) + ", worst " +
         percent(accuracy.max_abs_error) + " (" + accuracy.worst_run + ")";
}

std::string ValidateSummary::statistics_report() const {
  auto line = [](const std::string& name, const Statistics& s) {
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "statistics: %-15s %3zu configurations, %4zu runs: bias %+.1f%% [%+.1f%%, %+.1f%%], medians within "
                  "±5%% %.0f%%, "
                  "±10%% %.0f%%, coverage of 80%% intervals %.0f%% (width %.1f%%), noise floor %.1f%%",
                  name.c_str(), s.configurations, s.runs, 100 * s.bias, 100 * s.bias_low, 100 * s.bias_high,
                  100 * s.within_5, 100 * s.within_10, 100 * s.coverage, 100 * s.median_width, 100 * s.noise_floor);
    return std::string(buf);
  };
  std::string out = line("all", overall);
  for (const auto& [g, s] : groups) out += "\n" + line(g, s);
  for (const auto& [a, s] : axes) out += "\n" + line(a == "calibrated regime" ? a : "held-out " + a, s);
  if (probe_only) out += "\n" + line("probes only", *probe_only);
  if (alternative) {
    // The other model of an oversubscribed computer, so that every validation shows which explains
    // its runs better.
    const std::string other = alternative_model + ": ";
    out += "\n" + line(other + "all", *alternative);
    for (const auto& [a, s] : alternative_axes)
      out += "\n" + line(other + (a == "calibrated regime" ? a : "held-out " + a), s);
  }
  if (validation_s > 0) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "\ncost: calibration %.0f s (runs and experiments), validated runs %.0f s: %.1f%%",
                  calibration_s, validation_s, 100 * calibration_s / validation_s);
    out += buf;
  }
  return out;
}

std::string ValidateSummary::noise_report() const {
  if (runs.empty() || runs.front().measured_samples_s.size() < 2) return {};
  return "noise floor: repeats spread by " + percent(accuracy.median_spread) + " (median); " +
         percent(accuracy.spread_over_10) + " of the runs vary by more than ±5% on their own";
}

ValidateSummary run_validation(const ValidateOptions& o) {
  if (std::string e; !o.is_valid(&e)) throw InputError("validate: " + e);
  probes::install_cleanup_handlers();
  ValidateSummary summary;
  const fs::path out = o.out;
  if (std::error_code ec; !o.replay.empty() && fs::equivalent(o.replay, out, ec)) {
    throw InputError("validate: --out " + out.string() +
                     " is the replayed directory; its reports would be overwritten");
  }
  const int repeat = o.repeat > 0 ? o.repeat : 7;
  const int max_repeat = std::max(repeat, o.max_repeat);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // A replay takes the matrix's shape (the recorded machine's cores, quick or full) and the
  // measurements from the recorded validation, read before anything is written, and fits its
  // calibration traces again.
  const fs::path replay = o.replay, recorded_file = replay / "validation.json";
  std::optional<nlohmann::json> recorded;
  int matrix_cores = cores;
  bool quick = o.quick;
  if (!replay.empty()) {
    recorded = read_json_file(recorded_file);
    const JsonNode root(*recorded, recorded_file.string());
    root.schema("validation", 2);
    const JsonNode facts = root.object("facts");
    matrix_cores = static_cast<int>(facts.integer("cores", 1, 1 << 20));
    quick = facts.boolean_or("quick", false);
  }
  // A testbed: its computers are where the ranks go (a replay takes the recorded pair).
  TestbedSession testbed;
  std::optional<std::pair<std::string, std::string>> across;  // (fast, slow) computer names
  if (recorded && recorded->at("facts").contains("testbed computers")) {
    const JsonNode pair = JsonNode(*recorded, recorded_file.string()).object("facts").object("testbed computers");
    across = {pair.string("fast"), pair.string("slow")};
  } else if (!o.testbed.empty() && replay.empty()) {
    testbed.spec = read_testbed_spec(o.testbed);
    testbed.options.state_dir = o.testbed_state_dir;
    testbed.options.command = o.command;
    choose_fast_and_slow(testbed, o.testbed);
    across = {testbed.fast_name(), testbed.slow_name()};
  }
  fs::create_directories(out);
  const std::string bin = o.programs.empty() ? probes::executable_directory() : o.programs;
  for (const char* program : {"hetperf-lu", "hetperf-integrate"}) {
    if (o.replay.empty() && ::access((bin + "/" + program).c_str(), X_OK) != 0) {
      throw EnvironmentError(bin + "/" + program + ": missing (build the targets hetperf-lu and hetperf-integrate)");
    }
  }
  // Scratch for the integration's disk writes and the removal runs' traces; removed at the end.
  const fs::path scratch = out / ".scratch";
  fs::create_directories(scratch);
  struct RemoveScratch {
    fs::path dir;
    ~RemoveScratch() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_scratch{scratch};
  Runner runner(o);
  if (!o.testbed.empty() && replay.empty()) {
    if (::access((bin + "/hetperf-testbed-launcher").c_str(), X_OK) != 0) {
      throw EnvironmentError(bin + "/hetperf-testbed-launcher: missing (build the target hetperf)");
    }
    std::fprintf(stderr, "validate: bringing testbed '%s' up from %s\n", testbed.spec.name.c_str(), o.testbed.c_str());
    const TestbedUpSummary up = testbed_up(testbed.spec, testbed.options);
    testbed.up = true;
    std::fprintf(stderr, "%s\n", up.brief_report().c_str());
    runner.use_testbed(bin + "/hetperf-testbed-launcher", o.testbed_state_dir);
  }

  summary.facts = {{"cores", matrix_cores}, {"repeats per run", repeat}, {"quick", quick}};
  if (max_repeat > repeat) {
    summary.facts["repeats per run, at most"] = max_repeat;
    summary.facts["median precision (95% interval, ±)"] = o.median_precision;
    if (o.further_budget_s > 0) summary.facts["further rounds' budget, s"] = o.further_budget_s;
  }
  if (across) {
    summary.facts["testbed computers"] = {{"fast", across->first}, {"slow", across->second}};
    if (testbed.up)
      summary.facts["testbed"] = to_json(testbed.spec);
    else if (recorded->at("facts").contains("testbed"))
      summary.facts["testbed"] = recorded->at("facts").at("testbed");
  }
  std::string profile_file = o.profile;
  Profile profile;
  double calibration_s = 0, validation_s = 0;  // seconds of calibration and validated runs
  if (!replay.empty()) {
    // The recorded profile (probes and contention experiments); its trace models are fitted again,
    // and its hand-off taken again from the probe's recorded fan-out and slice, as this version does.
    profile_file = (out / "profile.json").string();
    profile = read_profile(o.profile.empty() ? (replay / "profile.json").string() : o.profile);
    handoff_from_recorded_probes(profile);
  } else if (profile_file.empty() && testbed.up) {
    // One core per computer, each its own cgroup: the one-machine contention experiments do not
    // apply; the calibration traces take each computer alone, and what a waiting rank takes from a
    // worker beside it is measured on each of the two computers.
    profile_file = probe_and_calibrate_testbed(o, testbed, bin, out, summary.facts).string();
    profile = read_profile(profile_file);
    const calibrate::PlacedRunner run = [&](const std::vector<std::string>& hosts,
                                            const std::vector<std::string>& args) {
      return runner.run(static_cast<int>(hosts.size()), args, hosts);
    };
    const auto contention_start = std::chrono::steady_clock::now();
    for (const auto& [c, elsewhere] :
         {std::pair{testbed.fast_name(), testbed.slow_name()}, std::pair{testbed.slow_name(), testbed.fast_name()}}) {
      Computer& computer = profile.computers[*profile.find(c)];
      // Where the cpu probe measured the scheduler's slice, ranks beyond the cores take turns of it
      // (time-sliced cores), which replace processor sharing and its waiting share: measuring that
      // share would cost runs no default prediction reads (only the processor-sharing row would).
      if (computer.time_slice_s > 0) {
        summary.facts["waiting rank's CPU share on " + c] =
            "not measured: time-sliced cores (slice " + std::to_string(computer.time_slice_s * 1e3) + " ms)";
        continue;
      }
      calibrate::ContentionOptions co;
      co.cores = computer.cores;
      co.repeats = quick ? 3 : 5;
      co.quick = quick;
      co.integrate_program = bin + "/hetperf-integrate";
      co.scratch = scratch.string();
      const auto waiting = calibrate::measure_waiting_share_on(co, c, elsewhere, run);
      std::fprintf(stderr, "validate: %s: %s\n", c.c_str(), waiting.brief_report().c_str());
      computer.cpu_share_waiting = waiting.value;
      computer.fits["communication_cpu"]["waiting"] = waiting.record;
      summary.facts["waiting rank's CPU share on " + c + " (calibrated)"] = waiting.value;
    }
    calibration_s += seconds_since(contention_start);
    write_file_atomic(profile_file, to_json(profile).dump(2) + "\n");
  } else if (profile_file.empty()) {
    profile_file = probe_and_calibrate(o, out).string();
    profile = read_profile(profile_file);
    const auto contention_start = std::chrono::steady_clock::now();
    calibrate::ContentionOptions co;
    co.cores = cores;
    co.quick = o.quick;
    co.integrate_program = bin + "/hetperf-integrate";
    co.scratch = scratch.string();
    const calibrate::ProgramRunner run = [&](int copies, int ranks, const std::vector<std::string>& args) {
      return runner.run_concurrently(copies, ranks, args);
    };
    // The kernels' concurrency speeds are the cpu probe's concurrent copies (computers[*].concurrency_speed),
    // the hand-off the net probe's fan-out (computers[*].oversubscribed_handoff_s).
    const auto waiting = calibrate::measure_waiting_share(co, run);
    std::fprintf(stderr, "validate: %s\n", waiting.brief_report().c_str());
    for (auto& c : profile.computers) {
      c.cpu_share_waiting = waiting.value;
      c.fits["communication_cpu"]["waiting"] = waiting.record;
    }
    write_file_atomic(profile_file, to_json(profile).dump(2) + "\n");
    summary.facts["LU kernels' speed with k = 1 .. cores copies at once (probe)"] =
        profile.computers.front().concurrency_speed;
    summary.facts["waiting rank's CPU share (calibrated)"] = waiting.value;
    summary.facts["oversubscribed hand-off, s (probe)"] = profile.computers.front().oversubscribed_handoff_s;
    calibration_s += seconds_since(contention_start);
  } else {
    profile = read_profile(profile_file);
  }
  summary.facts["profile"] = profile_file;

  ValidationMatrixOptions mo;
  mo.quick = quick;
  mo.cores = matrix_cores;
  mo.computer = o.computer;
  mo.lu_program = bin + "/hetperf-lu";
  mo.integrate_program = bin + "/hetperf-integrate";
  mo.scratch = scratch.string();
  std::vector<ValidationRun> runs =
      across ? testbed_matrix(mo, profile, across->first, across->second) : validation_matrix(mo, profile);
  if (recorded && !across) {
    runs = recorded_runs(*recorded, recorded_file.string(), runs.front().job.mapping.front());
  } else if (recorded) {
    // The testbed's matrix places its ranks; the recorded runs are matched to it by id.
    const JsonNode root(*recorded, recorded_file.string());
    std::map<std::string, JsonNode> by_id;
    for (const JsonNode& r : root.array("runs")) by_id.emplace(r.string("id"), r);
    for (auto& r : runs) {
      auto found = by_id.find(r.id);
      if (found == by_id.end())
        root.field("runs").fail("a run with id \"" + r.id + "\" (the matrix of that validation)");
      for (const JsonNode& x : found->second.array("samples_s", 1))
        r.measured_samples_s.push_back(x.as_number(Range::kPositive));
      if (auto it = found->second.optional("measured_iterations")) r.measured_iterations = it->value();
    }
  }

  // Calibration in the applications' own regime: traced runs of configurations disjoint from the
  // matrix's, fitted into operation models (calibrate --trace). They run interleaved with the matrix's
  // runs in one seeded random order, so that they sample the states the validated runs meet: the
  // machine's state drifts over tens of minutes (results/vm at 0ced1d1). No prediction uses a validated
  // run: the calibration traces alone are fitted, after the last run.
  const int calibration_repeat = o.calibration_repeat >= 0 ? o.calibration_repeat : quick || across ? 3 : 6;
  const bool calibrating = replay.empty() && o.profile.empty() && calibration_repeat > 0;
  const std::vector<CalibrationRun> cal = !calibrating ? std::vector<CalibrationRun>{}
                                          : across     ? testbed_calibration_matrix(mo, across->first, across->second)
                                                       : calibration_matrix(mo);
  nlohmann::json calibration_list = nlohmann::json::array();
  for (const auto& c : cal) calibration_list.push_back(c.shape);
  std::vector<fs::path> traces;
  if (!replay.empty() && fs::is_directory(replay / "calibration-traces")) {
    for (const auto& e : fs::directory_iterator(replay / "calibration-traces")) {
      if (e.path().extension() == ".json") traces.push_back(e.path());
    }
    std::sort(traces.begin(), traces.end());
    std::set<std::string> configurations;
    for (const auto& t : traces) {
      const std::string stem = t.stem().string();  // <configuration id>-<repeat>
      configurations.insert(stem.substr(0, stem.rfind('-')));
    }
    for (const auto& c : configurations) calibration_list.push_back(c);
    summary.facts["replayed"] = replay.string();
  }
  if (replay.empty()) {
    const fs::path trace_dir = out / "calibration-traces";
    if (calibrating) {
      fs::remove_all(trace_dir);
      fs::create_directories(trace_dir);
    }
    RealRunsPlan plan;
    plan.repeat = repeat, plan.calibration_repeat = calibration_repeat, plan.max_repeat = max_repeat;
    plan.median_precision = o.median_precision, plan.further_budget_s = o.further_budget_s, plan.seed = o.seed;
    plan.integrate_program = mo.integrate_program, plan.scratch = scratch, plan.trace_dir = trace_dir;
    RealRunsTime t = run_real_runs(plan, runs, cal, [&](int ranks, const auto& args, const auto& hosts) {
      return runner.run(ranks, args, hosts);
    });
    calibration_s += t.calibration_s, validation_s += t.validation_s;
    if (max_repeat > repeat) summary.facts["further rounds, s"] = t.further_s;
    traces = std::move(t.traces);
  }
  testbed.down();  // every real run is done
  // The seeds' method beside the trace-informed one: the profile of the probes and the contention
  // experiments alone, no application trace.
  std::optional<Profile> probe_only;
  if (!traces.empty()) {
    probe_only = profile;
    for (auto& c : probe_only->computers) {
      c.app_models = {};
      // Recordings from before the net probe's fan-out fitted the hand-off on an LU run, once against
      // the probes' kernel models; their probes-only row keeps that first fit.
      const nlohmann::json& cpu = c.fits.contains("communication_cpu") ? c.fits["communication_cpu"] : nlohmann::json();
      if (cpu.contains("probes_only_handoff_s"))
        c.oversubscribed_handoff_s = cpu["probes_only_handoff_s"].get<double>();
    }
    if (o.page_retouch) summary.facts["re-touched pages applied"] = calibrate::apply_recorded_page_retouch(profile);
    // Across a testbed every rank's calls go under the computer it ran on (its hostname there).
    const calibrate::TraceFitOptions to = calibrate::trace_fit_options(
        profile, across ? "" : profile.computers[o.computer.empty() ? 0 : *profile.find(o.computer)].name);
    calibrate::TraceFit fit = calibrate::fit_traces(traces, to);
    calibrate::apply_trace_fit(profile, fit);
    if (across) use_host_local_line(replay.empty() ? out : replay, {&*probe_only, &profile});
    for (const auto& line : fit.report) std::fprintf(stderr, "validate: %s\n", line.c_str());
    // Every calibration run against the prediction of its configuration by the mechanisms alone: a
    // diagnostic and the spread of what they miss, never a factor of the predictions.
    const auto diagnostics = apps::calibration_diagnostics(profile, traces, to.computer);
    apps::record_diagnostics(profile, diagnostics);
    for (const auto& line : apps::diagnostics_report(diagnostics)) std::fprintf(stderr, "validate: %s\n", line.c_str());
    summary.facts["calibration runs"] = traces.size();
  }
  // The profile with the trace models fitted (a replay's too), written with the reports as one set:
  // if anything fails, the previous one stays.
  std::optional<std::string> fitted_profile;
  if (!traces.empty() || !replay.empty()) fitted_profile = to_json(profile).dump(2) + "\n";
  summary.facts["calibration configurations"] = calibration_list;
  nlohmann::json validation_list = nlohmann::json::array();
  for (const auto& r : runs) validation_list.push_back(r.id);
  summary.facts["validation configurations"] = validation_list;
  summary.facts["seed"] = o.seed;
  summary.facts["sampled predictions per configuration"] = o.samples;

  // The predictions, from the profile and the calibration traces alone: the point, and the
  // distribution of `samples` draws.
  std::vector<AppJob> all;
  for (const auto& r : runs) all.push_back(r.job);
  apps::SimPlatform platform = apps::sim_platform_from_profile(profile, profile_file, apps::kernels_needed(all));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& r = runs[i];
    apps::AppPrediction p = apps::predict_app_jobs(platform, profile, {r.job}, false);
    r.point_s = p.jobs.front().time_s;
    if (r.job.kind == AppJob::Kind::kLu) r.predicted_iterations = p.jobs.front().json["iterations"];
    apps::SampledAppJobs sampled =
        apps::sample_app_jobs(profile, {r.job}, static_cast<std::size_t>(o.samples), o.seed + i);
    r.predicted_samples_s = sampled.time_s.front();
    r.predicted_s = median(sampled.typical_s.front());
    r.predicted_p10_s = quantile_nearest_rank(r.predicted_samples_s, 0.10);
    r.predicted_p90_s = quantile_nearest_rank(r.predicted_samples_s, 0.90);
    r.axes = held_out_axes(r, profile);
  }
  if (probe_only) predict_probe_only(*probe_only, profile_file, all, runs, summary.facts);
  summary.alternative_model = predict_alternative(profile, runs, o, summary.alternative_slice_s);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& r = runs[i];
    r.measured_s = median(r.measured_samples_s);
    const auto ci = median_ci95(r.measured_samples_s);
    std::size_t inside = 0;
    for (double x : r.measured_samples_s) inside += x >= r.predicted_p10_s && x <= r.predicted_p90_s;
    std::fprintf(
        stderr,
        "[%zu/%zu] %-40s measured %9.4f [%.4f, %.4f] s  predicted %9.4f [%.4f, %.4f] s  %+6.1f%%  %zu/%zu inside\n",
        i + 1, runs.size(), r.id.c_str(), r.measured_s, ci.first, ci.second, r.predicted_s, r.predicted_p10_s,
        r.predicted_p90_s, 100 * r.error(), inside, r.measured_samples_s.size());
  }

  // Reports: rendered first, then written atomically.
  nlohmann::json runs_json = nlohmann::json::array();
  for (const auto& r : runs) {
    const auto ci = median_ci95(r.measured_samples_s);
    runs_json.push_back({{"id", r.id},
                         {"group", r.group},
                         {"ranks", r.ranks},
                         {"measured_s", r.measured_s},
                         {"measured_median_ci95", {ci.first, ci.second}},
                         {"samples_s", r.measured_samples_s},
                         {"predicted_s", r.predicted_s},
                         {"point_s", r.point_s},
                         {"predicted_80", {r.predicted_p10_s, r.predicted_p90_s}},
                         {"error", r.error()},
                         {"measured_iterations", r.measured_iterations},
                         {"predicted_iterations", r.predicted_iterations},
                         {"held_out_axes", r.axes},
                         {"probe_only_s", r.probe_only_s},
                         {"command", r.arguments}});
    if (r.alternative_s > 0) {
      runs_json.back()["alternative_s"] = r.alternative_s;
      runs_json.back()["alternative_80"] = {r.alternative_p10_s, r.alternative_p90_s};
    }
  }
  const Accuracy acc = accuracy(runs);
  summary.overall = statistics(runs, o.seed);
  std::map<std::string, std::vector<ValidationRun>> by_group;
  for (const auto& r : runs) by_group[r.group].push_back(r);
  nlohmann::json groups_json = nlohmann::json::object();
  for (const auto& [g, list] : by_group) {
    summary.groups[g] = statistics(list, o.seed);
    groups_json[g] = to_json(summary.groups[g]);
  }
  summary.axes = axis_statistics(runs, o.seed);
  nlohmann::json axes_json = nlohmann::json::object();
  for (const auto& [a, st] : summary.axes) axes_json[a] = to_json(st);
  if (probe_only && !runs.empty() && runs.front().probe_only_s > 0) {
    std::vector<ValidationRun> seeds = runs;
    for (auto& r : seeds) r.predicted_s = r.predicted_p10_s = r.predicted_p90_s = r.probe_only_s;
    summary.probe_only = statistics(seeds, o.seed);
  }
  if (!summary.alternative_model.empty()) {
    std::vector<ValidationRun> other = runs;
    for (auto& r : other)
      r.predicted_s = r.alternative_s, r.predicted_p10_s = r.alternative_p10_s, r.predicted_p90_s = r.alternative_p90_s;
    summary.alternative = statistics(other, o.seed);
    summary.alternative_axes = axis_statistics(other, o.seed);
  }
  summary.calibration_s = calibration_s, summary.validation_s = validation_s;
  summary.within_bounds = std::fabs(summary.overall.bias) <= o.max_bias && summary.overall.coverage >= o.min_coverage;
  nlohmann::json figures = {{"runs", acc.runs},
                            {"within_5_percent", acc.within_5},
                            {"within_10_percent", acc.within_10},
                            {"mean_abs_error", acc.mean_abs_error},
                            {"max_abs_error", acc.max_abs_error},
                            {"worst_run", acc.worst_run},
                            {"median_repeat_spread", acc.median_spread},
                            {"runs_spread_over_10_percent", acc.spread_over_10},
                            {"statistics", to_json(summary.overall)},
                            {"groups", groups_json},
                            {"axes", axes_json}};
  if (summary.probe_only) figures["probes_only"] = to_json(*summary.probe_only);
  if (summary.alternative) {
    nlohmann::json other_axes = nlohmann::json::object();
    for (const auto& [a, st] : summary.alternative_axes) other_axes[a] = to_json(st);
    figures["alternative"] = {{"model", summary.alternative_model},
                              {"slice_s", summary.alternative_slice_s},
                              {"statistics", to_json(*summary.alternative)},
                              {"axes", other_axes}};
  }
  if (validation_s > 0) {
    figures["cost"] = {{"calibration_s", calibration_s},
                       {"validated_runs_s", validation_s},
                       {"calibration_share", calibration_s / validation_s}};
  }
  nlohmann::json doc = {{"schema", "hetperf.validation/2"},
                        {"command", o.command},
                        {"facts", summary.facts},
                        {"summary", figures},
                        {"runs", runs_json}};
  // The reports and the pictures as one set: a failure anywhere leaves every previous one as it was.
  OutputSet outputs;
  if (fitted_profile) outputs.write(profile_file, *fitted_profile, "--out");
  outputs.write(out / "validation.csv", validation_csv(runs), "--out");
  outputs.write(out / "validation.md", validation_markdown(runs, o.command, summary.facts), "--out");
  outputs.write(out / "validation.json", doc.dump(2) + "\n", "--out");
  summary.written = {"validation.csv", "validation.md", "validation.json"};
  draw(validation_pictures(runs), out, outputs, summary);
  outputs.commit();
  summary.accuracy = acc;
  summary.within_max_error = acc.max_abs_error <= o.max_error;
  summary.runs = std::move(runs);
  return summary;
}

}  // namespace hetperf::validate
