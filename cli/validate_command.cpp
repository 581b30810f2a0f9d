// `hetperf validate`: predicted against measured on real runs of the applications on this machine
// (issue 7). Probes and calibrates when no profile is given, measures the CPU share of a waiting MPI
// rank on separate calibration runs, predicts every run of the matrix before running any, runs them
// under mpiexec, and writes the accuracy figures, tables and pictures.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "app_jobs.hpp"
#include "commands.hpp"
#include "hetperf/calibrate/fit_plot.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/net_probe.hpp"
#include "validation.hpp"

namespace hetperf::cli {
namespace {

namespace fs = std::filesystem;

struct ValidateArgs {
  bool quick = false;
  std::string profile;
  std::string out;
  int repeat = 0;  // 0: 3, or 1 with --quick
  double max_error = 0.25;
  std::string mpiexec = "mpiexec";
  std::string computer;
  int timeout_s = 900;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs one command to its end; its stdout's last line is the program's JSON summary.
nlohmann::json run_program(const ValidateArgs& a, int ranks, std::vector<std::string> args) {
  std::vector<std::string> argv = {"timeout", std::to_string(a.timeout_s), a.mpiexec, "-n", std::to_string(ranks)};
  argv.insert(argv.end(), args.begin(), args.end());
  probes::CommandResult r = probes::run_capturing_stdout(argv);
  std::string command;
  for (const auto& s : argv) command += (command.empty() ? "" : " ") + s;
  if (r.status != 0) {
    throw EnvironmentError("validate: `" + command + "` failed with exit status " + std::to_string(r.status) +
                           (r.status == 124 ? " (timed out)" : ""));
  }
  auto end = r.output.find_last_not_of('\n');
  auto begin = r.output.rfind('\n', end);
  std::string line = r.output.substr(begin == std::string::npos ? 0 : begin + 1, end == std::string::npos ? 0 : end - begin);
  try {
    return nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    throw EnvironmentError("validate: `" + command + "` printed no JSON summary (last line: '" + line + "')");
  }
}

// A number of a program's JSON summary; EnvironmentError when the program did not print it.
double summary_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains("summary") || !j["summary"].contains(key) || !j["summary"][key].is_number()) {
    throw EnvironmentError(std::string("validate: a program's summary lacks \"") + key + "\": " + j.dump());
  }
  return j["summary"][key].get<double>();
}

// Probe (cpu kernels at the matrix's block sizes, disk, net) and calibrate this machine into `dir`.
fs::path probe_and_calibrate(const ValidateArgs& a, const fs::path& dir) {
  const std::string self = probes::executable_directory() + "/hetperf";
  std::string blocks;
  for (int b : apps::validation_kernel_blocks(a.quick)) blocks += (blocks.empty() ? "" : ",") + std::to_string(b);
  const fs::path measurement = dir / "measurement.json", profile = dir / "profile.json";
  const std::string lu_rows = std::to_string(apps::validation_lu_rows(a.quick));
  std::fprintf(stderr, "validate: probing this machine (cpu with kernels %s, compact and at the LU's shapes in %s rows; "
               "disk, net)\n", blocks.c_str(), lu_rows.c_str());
  auto probe = probes::run_capturing_stdout({self, "probe", "--quick", "--only", "cpu,disk,net", "--blocks", blocks,
                                             "--lu-rows", lu_rows, "--dir", dir.string(), "--out", measurement.string()});
  if (probe.status != 0) throw EnvironmentError("validate: hetperf probe failed (exit status " + std::to_string(probe.status) + ")");
  auto cal = probes::run_capturing_stdout({self, "calibrate", measurement.string(), "--out", profile.string()});
  if (cal.status != 0) throw EnvironmentError("validate: hetperf calibrate failed (exit status " + std::to_string(cal.status) + ")");
  return profile;
}

// The CPU share of a waiting rank: one integration instance alone (t1), then one instance per core
// (tC): C workers and C waiting masters on C cores give each worker 1 / (1 + w) of a core, so
// w = tC / t1 − 1 (clamped to [0, 1]). These calibration runs are not among the validated ones.
double measure_wait_share(const ValidateArgs& a, int cores, const std::string& program, const fs::path& scratch,
                          nlohmann::json& record) {
  const std::string steps = a.quick ? "4000000" : "8000000";
  auto mean_response = [&](int instances) {
    std::vector<double> v;
    for (int k = 0; k < 3; ++k) {
      auto j = run_program(a, 2 * instances, {program, "--instances", std::to_string(instances), "--steps", steps,
                                             "--scratch", scratch.string()});
      v.push_back(summary_number(j, "mean_response_s"));
    }
    return median(v);
  };
  double t1 = mean_response(1), tc = mean_response(cores);
  double w = std::clamp(tc / t1 - 1, 0.0, 1.0);
  record = {{"steps", std::stoull(steps)}, {"alone_s", t1}, {"one_per_core_s", tc}, {"cores", cores}, {"waiting_share", w}};
  std::fprintf(stderr, "validate: a waiting MPI rank takes %.2f of a core (alone %.4f s, %d at once %.4f s)\n", w, t1,
               cores, tc);
  return w;
}

// The core efficiency of the LU kernels: one single-rank LU alone (t₁), then one per core at once
// (t_C, the mean of their times): e = t₁ / t_C. n = 1280 is not in the validated matrix.
double measure_core_efficiency(const ValidateArgs& a, int cores, const std::string& program, nlohmann::json& record) {
  const std::vector<std::string> lu = {program, "--n", "1280", "--r", "128"};
  std::string one = "timeout " + std::to_string(a.timeout_s) + " '" + a.mpiexec + "' -n 1";
  for (const auto& s : lu) one += " '" + s + "'";
  std::vector<double> alone, together;
  for (int k = 0; k < 3; ++k) {
    alone.push_back(summary_number(run_program(a, 1, lu), "factorization_s"));
    std::string all;
    for (int c = 0; c < cores; ++c) all += one + " & ";
    probes::CommandResult r = probes::run_capturing_stdout({"sh", "-c", all + "wait"});
    double sum = 0;
    int count = 0;
    std::size_t pos = 0;
    while (pos < r.output.size()) {
      std::size_t nl = r.output.find('\n', pos);
      std::string line = r.output.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? r.output.size() : nl + 1;
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("summary")) sum += summary_number(j, "factorization_s"), ++count;
    }
    if (count != cores) throw EnvironmentError("validate: " + std::to_string(cores) + " concurrent hetperf-lu runs gave " +
                                               std::to_string(count) + " results");
    together.push_back(sum / count);
  }
  const double t1 = median(alone), tc = median(together);
  const double e = std::clamp(t1 / tc, 0.05, 1.0);
  record = {{"n", 1280}, {"r", 128}, {"alone_s", t1}, {"all_cores_s", tc}, {"cores", cores}, {"core_efficiency", e}};
  std::fprintf(stderr, "validate: LU kernels on all %d cores at once run at %.2f of their speed alone (%.4f s against %.4f s)\n",
               cores, e, tc, t1);
  return e;
}

// The hand-off delay of a message into an oversubscribed computer: a communication-bound LU (r = 32,
// many iterations, little work) on 2 × cores ranks, measured, then simulated without the delay (T0)
// and with 1 ms (T1); the simulated time grows linearly with it, so q = (T − T0) / (T1 − T0) · 1 ms.
// Not among the validated runs (their smallest block is 64).
double measure_handoff(const ValidateArgs& a, int cores, const std::string& program, Profile& profile,
                       const std::string& profile_file, nlohmann::json& record) {
  const int ranks = 2 * cores, n = 768, r = 32;
  std::vector<double> v;
  for (int k = 0; k < 3; ++k) {
    auto j = run_program(a, ranks, {program, "--n", std::to_string(n), "--r", std::to_string(r), "--variant", "basic"});
    v.push_back(summary_number(j, "factorization_s"));
  }
  const double measured = median(v);
  apps::AppJob job;
  job.name = "handoff-calibration";
  job.ranks = ranks;
  job.lu.n = n, job.lu.r = r;
  job.mapping.assign(static_cast<std::size_t>(ranks), 0);
  auto simulate = [&](double q) {
    for (auto& c : profile.computers) c.oversubscribed_handoff_s = q;
    auto platform = apps::sim_platform_from_profile(profile, profile_file, apps::kernels_needed({job}));
    return apps::predict_app_jobs(platform, profile, {job}, false).jobs.front().time_s;
  };
  const double t0 = simulate(0), t1 = simulate(1e-3);
  const double q = t1 > t0 ? std::max(0.0, (measured - t0) / (t1 - t0) * 1e-3) : 0;
  record = {{"ranks", ranks}, {"n", n}, {"r", r}, {"measured_s", measured}, {"simulated_without_s", t0},
            {"simulated_with_1ms_s", t1}, {"handoff_s", q}};
  std::fprintf(stderr, "validate: a message into an oversubscribed computer waits %.3f ms more (LU n=%d r=%d on %d ranks: "
               "%.4f s measured, %.4f s simulated without)\n", 1e3 * q, n, r, ranks, measured, t0);
  return q;
}

void draw(const std::vector<apps::Picture>& pictures, const fs::path& dir) {
  auto gnuplot = calibrate::find_gnuplot();
  if (!gnuplot) {
    std::fprintf(stderr, "validate: gnuplot not found on PATH: no pictures (install gnuplot-nox)\n");
    return;
  }
  for (const auto& p : pictures) {
    // Drawn into a temporary name, then renamed: a failed picture leaves no partial file.
    const fs::path script = dir / ("." + p.file + ".gp");
    std::string text = p.script;
    const std::string output = "set output '" + p.file + "'";
    text.replace(text.find(output), output.size(), "set output '." + p.file + ".tmp'");
    write_file_atomic(script, text);
    std::string command = "cd '" + dir.string() + "' && '" + gnuplot->string() + "' '" + script.filename().string() + "'";
    int rc = std::system(command.c_str());
    fs::remove(script);
    if (rc != 0) throw EnvironmentError("gnuplot failed (exit status " + std::to_string(rc) + ") drawing " + p.file);
    fs::rename(dir / ("." + p.file + ".tmp"), dir / p.file);
  }
}

int run_validate(const ValidateArgs& a, const std::string& command_line) {
  probes::install_cleanup_handlers();
  const fs::path out = a.out;
  fs::create_directories(out);
  const int repeat = a.repeat > 0 ? a.repeat : (a.quick ? 1 : 3);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string bin = probes::executable_directory();
  for (const char* program : {"hetperf-lu", "hetperf-integrate"}) {
    if (::access((bin + "/" + program).c_str(), X_OK) != 0) {
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

  nlohmann::json facts = {{"cores", cores}, {"repeats per run", repeat}, {"quick", a.quick}};
  std::string profile_file = a.profile;
  Profile profile;
  if (profile_file.empty()) {
    profile_file = probe_and_calibrate(a, out).string();
    profile = read_profile(profile_file);
    nlohmann::json efficiency_record;
    double e = measure_core_efficiency(a, cores, bin + "/hetperf-lu", efficiency_record);
    for (auto& c : profile.computers) {
      c.core_efficiency = e;
      c.fits["core_efficiency"] = efficiency_record;
    }
    nlohmann::json record;
    double w = measure_wait_share(a, cores, bin + "/hetperf-integrate", scratch, record);
    for (auto& c : profile.computers) {
      c.cpu_share_waiting = w;
      c.fits["communication_cpu"]["waiting"] = record;
    }
    nlohmann::json handoff_record;
    double q = measure_handoff(a, cores, bin + "/hetperf-lu", profile, profile_file, handoff_record);
    for (auto& c : profile.computers) {
      c.oversubscribed_handoff_s = q;
      c.fits["communication_cpu"]["handoff_s"] = handoff_record;
    }
    write_file_atomic(profile_file, to_json(profile).dump(2) + "\n");
    facts["LU kernels' core efficiency (calibrated)"] = e;
    facts["waiting rank's CPU share (calibrated)"] = w;
    facts["oversubscribed hand-off, s (calibrated)"] = q;
  } else {
    profile = read_profile(profile_file);
  }
  facts["profile"] = profile_file;

  apps::ValidationMatrixOptions mo;
  mo.quick = a.quick;
  mo.cores = cores;
  mo.computer = a.computer;
  mo.lu_program = bin + "/hetperf-lu";
  mo.integrate_program = bin + "/hetperf-integrate";
  mo.scratch = scratch.string();
  std::vector<apps::ValidationRun> runs = apps::validation_matrix(mo, profile);

  // Every prediction is made before any real run.
  std::vector<apps::AppJob> all;
  for (const auto& r : runs) all.push_back(r.job);
  apps::SimPlatform platform = apps::sim_platform_from_profile(profile, profile_file, apps::kernels_needed(all));
  for (auto& r : runs) {
    apps::AppPrediction p = apps::predict_app_jobs(platform, profile, {r.job}, false);
    r.predicted_s = p.jobs.front().time_s;
    if (r.job.kind == apps::AppJob::Kind::kLu) r.predicted_iterations = p.jobs.front().json["iterations"];
  }
  std::fprintf(stderr, "validate: %zu runs predicted; running each %d time(s)\n", runs.size(), repeat);

  // Repeats go in rounds over the whole matrix, not back to back: the host's speed drifts over
  // seconds to minutes (docs/validation.md), and a configuration's median should sample that drift
  // rather than land all its repeats in one slow or fast spell.
  for (int k = 0; k < repeat; ++k) {
    if (repeat > 1) std::fprintf(stderr, "validate: round %d of %d\n", k + 1, repeat);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      auto& r = runs[i];
      const bool lu = r.job.kind == apps::AppJob::Kind::kLu;
      probes::throw_if_interrupted();
      std::vector<std::string> args = r.arguments;
      const fs::path trace = scratch / "trace.json";
      if (r.group == "lu-removal" && k == 0) args.insert(args.end(), {"--trace", trace.string()});
      nlohmann::json j = run_program(a, r.ranks, args);
      r.measured_samples_s.push_back(summary_number(j, lu ? "factorization_s" : "mean_response_s"));
      if (r.group == "lu-removal" && k == 0) {
        r.measured_iterations = read_json_file(trace)["iterations"];
        fs::remove(trace);
      }
      if (k + 1 < repeat) {
        std::fprintf(stderr, "  [%zu/%zu] %-40s measured %9.4f s\n", i + 1, runs.size(), r.id.c_str(),
                     r.measured_samples_s.back());
        continue;
      }
      r.measured_s = median(r.measured_samples_s);
      std::fprintf(stderr, "[%zu/%zu] %-40s measured %9.4f s  predicted %9.4f s  %+6.1f%%\n", i + 1, runs.size(),
                   r.id.c_str(), r.measured_s, r.predicted_s, 100 * r.error());
    }
  }

  // Reports: rendered first, then written atomically.
  nlohmann::json runs_json = nlohmann::json::array();
  for (const auto& r : runs) {
    runs_json.push_back({{"id", r.id}, {"group", r.group}, {"ranks", r.ranks}, {"measured_s", r.measured_s},
                         {"samples_s", r.measured_samples_s}, {"predicted_s", r.predicted_s}, {"error", r.error()},
                         {"measured_iterations", r.measured_iterations}, {"predicted_iterations", r.predicted_iterations},
                         {"command", r.arguments}});
  }
  apps::Accuracy acc = apps::accuracy(runs);
  nlohmann::json summary = {{"runs", acc.runs}, {"within_5_percent", acc.within_5}, {"within_10_percent", acc.within_10},
                            {"mean_abs_error", acc.mean_abs_error}, {"max_abs_error", acc.max_abs_error},
                            {"worst_run", acc.worst_run}, {"median_repeat_spread", acc.median_spread},
                            {"runs_spread_over_10_percent", acc.spread_over_10}};
  nlohmann::json doc = {{"schema", "hetperf.validation/1"}, {"command", command_line}, {"facts", facts},
                        {"summary", summary}, {"runs", runs_json}};
  write_file_atomic(out / "validation.csv", apps::validation_csv(runs));
  write_file_atomic(out / "validation.md", apps::validation_markdown(runs, command_line, facts));
  write_file_atomic(out / "validation.json", doc.dump(2) + "\n");
  draw(apps::validation_pictures(runs), out);

  std::printf("validation: %zu runs, %.1f%% within ±5%%, %.1f%% within ±10%%, mean |error| %.1f%%, worst %.1f%% (%s)\n",
              acc.runs, 100 * acc.within_5, 100 * acc.within_10, 100 * acc.mean_abs_error, 100 * acc.max_abs_error,
              acc.worst_run.c_str());
  if (repeat > 1) {
    std::printf("noise floor: repeats spread by %.1f%% (median); %.1f%% of the runs vary by more than ±5%% on their own\n",
                100 * acc.median_spread, 100 * acc.spread_over_10);
  }
  std::printf("wrote %s/validation.{csv,md,json} and pictures\n", out.string().c_str());
  if (acc.max_abs_error > a.max_error) {
    std::fprintf(stderr, "validate: %s is off by %.1f%%, more than --max-error %.0f%%\n", acc.worst_run.c_str(),
                 100 * acc.max_abs_error, 100 * a.max_error);
    return 1;
  }
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Predict, then run for real, a matrix of LU and integration runs on this machine, and report the "
                  "prediction errors (validation.csv, validation.md, pictures).");
  cmd->add_flag("--quick", args->quick, "A small matrix of a few minutes (for CI)");
  cmd->add_option("-p,--profile", args->profile,
                  "Platform profile to predict with (default: probe and calibrate this machine into --out)");
  cmd->add_option("-o,--out", args->out, "Directory for the results, e.g. results/<host>")->required();
  cmd->add_option("--repeat", args->repeat, "Real runs per configuration; the median is compared (default: 3, 1 with --quick)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--max-error", args->max_error, "Exit 1 when a run's |error| exceeds this fraction")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--mpiexec", args->mpiexec, "MPI launcher")->capture_default_str();
  cmd->add_option("--computer", args->computer, "The profile's computer that is this machine (default: the first)");
  cmd->add_option("--timeout", args->timeout_s, "Seconds before a real run is given up")->capture_default_str()->check(CLI::Range(1, 86400));
  cmd->callback([&action, args, command_line] {
    action = [args, command_line] {
      try {
        return run_validate(*args, command_line);
      } catch (const probes::Interrupted&) {
        // Unwound: the scratch directory and the runs' processes are gone; no report was written.
        std::fprintf(stderr, "validate: interrupted; no report written\n");
        return 130;
      }
    };
  });
}

}  // namespace hetperf::cli
