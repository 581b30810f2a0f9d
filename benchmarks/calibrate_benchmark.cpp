// Calibrating a 100-machine platform: read, hash and validate 100 measurement files, then fit every
// machine (memory slowdown, LU kernels) and every host pair's network. The target is under 5 s.
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "../tests/calibrate/synthetic_measurement.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/model/file_io.hpp"

namespace {

using hetperf::testing::SyntheticOptions;

// Writes `count` measurement files (2% noise, distinct machines, loopback ping-pong each) once.
std::vector<std::filesystem::path> measurement_files(int count, bool capacity_known) {
  auto dir = std::filesystem::temp_directory_path() /
             ("hetperf-calibrate-bench-" + std::to_string(::getpid()) + (capacity_known ? "-known" : "-search"));
  std::filesystem::create_directories(dir);
  std::vector<std::filesystem::path> files;
  const hetperf::testing::SeedSlowdown tables[] = {hetperf::testing::kTable2, hetperf::testing::kTable5,
                                                   hetperf::testing::kTable6};
  for (int i = 0; i < count; ++i) {
    SyntheticOptions o;
    o.machine = "node" + std::to_string(i);
    o.hosts = {o.machine, o.machine};
    o.seed = static_cast<std::uint64_t>(i + 1);
    o.relative_noise = 0.02;
    o.memory = tables[i % 3];
    o.memory_capacity_known = capacity_known;
    o.rendezvous_bytes = i % 2 ? 65536 : 0;
    files.push_back(dir / (o.machine + ".json"));
    hetperf::write_json_file(files.back(), hetperf::to_json(hetperf::testing::synthetic_measurement(o)));
  }
  return files;
}

void calibrate_files(benchmark::State& state, bool capacity_known) {
  const int count = static_cast<int>(state.range(0));
  std::vector<std::filesystem::path> files = measurement_files(count, capacity_known);
  for (auto _ : state) {
    std::vector<hetperf::calibrate::CalibrationInput> inputs;
    for (const auto& f : files) inputs.push_back(hetperf::calibrate::load_measurement(f));
    hetperf::calibrate::Calibration cal = hetperf::calibrate::calibrate_platform(inputs, {"benchmark"});
    benchmark::DoNotOptimize(cal.profile.computers.data());
    state.counters["fits"] = static_cast<double>(cal.fits.size());
  }
  std::filesystem::remove_all(files.front().parent_path());
}

// Main-memory capacity recorded in each file: the knee is known.
void BM_CalibrateFiles(benchmark::State& state) { calibrate_files(state, true); }
// Capacity unknown: every file searches its knee over all breakpoints (one Ceres solve per candidate).
void BM_CalibrateFilesKneeSearch(benchmark::State& state) { calibrate_files(state, false); }

BENCHMARK(BM_CalibrateFiles)->Arg(1)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CalibrateFilesKneeSearch)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
