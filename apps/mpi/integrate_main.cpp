// hetperf-integrate: the real master/worker integration. `mpiexec -n P hetperf-integrate [--instances
// N] [--steps S] [--message-bytes M] [--disk-bytes D]` runs N independent instances at once, each of
// P / N ranks (one master, the rest workers), and prints each instance's response time and integral,
// and the workers' integration calls' CPU and wall seconds (summed over the ranks).
// Exit 1 when an integral is off the closed form 2(cos a − cos b) + e^b − e^a by more than 1e-8 relative.
#include <cmath>
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "hetperf/apps/integrate.hpp"
#include "hetperf/apps/mpi/mpi_runtime.hpp"

using namespace hetperf;
using namespace hetperf::apps;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  IntegrateConfig cfg;
  int instances = 1;
  std::string trace_file, scratch = ".";
  CLI::App app{"Master/worker trapezium integration of 2 sin x + e^x (real MPI back-end)", "hetperf-integrate"};
  app.add_option("--a", cfg.a, "Lower bound")->capture_default_str();
  app.add_option("--b", cfg.b, "Upper bound")->capture_default_str();
  app.add_option("--steps", cfg.steps, "Trapezium steps per worker")->capture_default_str();
  app.add_option("--message-bytes", cfg.message_bytes, "Bytes of each master/worker message (>= 16)")
      ->capture_default_str();
  app.add_option("--disk-bytes", cfg.disk_bytes, "Bytes each worker writes to disk")->capture_default_str();
  app.add_option("--instances", instances, "Independent instances run at once (ranks are split evenly)")
      ->capture_default_str();
  app.add_option("--scratch", scratch, "Directory for the workers' disk writes (files are removed)")
      ->capture_default_str();
  app.add_option("--trace", trace_file, "Write the trace (hetperf.trace/1) to this file (default: none)");
  if (auto exit_code = parse_on_all_ranks(app, argc, argv)) return *exit_code;
  if (instances < 1 || size % instances != 0) {
    fail_on_all_ranks(MPI_COMM_WORLD, "--instances " + std::to_string(instances) + ": expected a divisor of the " +
                                          std::to_string(size) + " ranks");
  }
  if (std::string error = cfg.validate(size / instances); !error.empty()) fail_on_all_ranks(MPI_COMM_WORLD, error);

  MPI_Comm instance;
  MPI_Comm_split(MPI_COMM_WORLD, rank / (size / instances), rank, &instance);
  MpiRuntime rt(instance, scratch);
  IntegrateResult result;
  Task task = integrate_rank(rt, cfg, result);
  MpiRuntime::run(task);
  nlohmann::json ranks = gather_traces(rt);

  // Instance masters report to world rank 0, every rank its compute calls' CPU and wall time.
  double mine[4] = {result.response_s, result.integral, rt.compute_cpu_s(), rt.compute_wall_s()};
  std::vector<double> all(4 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&instance);
  if (rank != 0) return finish_run(MPI_COMM_WORLD, "integrate", {}, {}, {}, "", true, "");
  const double exact = integral_closed_form(cfg.a, cfg.b);
  nlohmann::json processes = nlohmann::json::array();
  double sum = 0, worst = 0;
  for (int i = 0; i < instances; ++i) {
    std::size_t master = static_cast<std::size_t>(i) * (size / instances);
    double response = all[4 * master], integral = all[4 * master + 1];
    double error = std::fabs(integral - exact) / std::fabs(exact);
    worst = std::max(worst, error);
    sum += response;
    processes.push_back({{"instance", i}, {"response_s", response}, {"integral", integral}, {"relative_error", error}});
  }
  double cpu = 0, wall = 0;
  for (int r = 0; r < size; ++r) cpu += all[4 * r + 2], wall += all[4 * r + 3];
  bool ok = worst <= 1e-8;
  nlohmann::json config = {{"a", cfg.a},
                           {"b", cfg.b},
                           {"steps", cfg.steps},
                           {"message_bytes", cfg.message_bytes},
                           {"disk_bytes", cfg.disk_bytes},
                           {"instances", instances},
                           {"ranks_per_instance", size / instances}};
  nlohmann::json summary = {{"mean_response_s", sum / instances}, {"closed_form", exact},
                            {"worst_relative_error", worst},      {"integral_ok", ok},
                            {"workers_compute_cpu_s", cpu},       {"workers_compute_wall_s", wall}};
  char failure[96];
  std::snprintf(failure, sizeof failure, "integral off the closed form by %.3e relative", worst);
  return finish_run(MPI_COMM_WORLD, "integrate", config, summary,
                    {{"processes", processes}, {"instance_0_ranks", ranks}}, trace_file, ok, failure);
}
