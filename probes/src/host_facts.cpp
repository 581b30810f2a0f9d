// Host facts from uname, /proc/cpuinfo, /proc/meminfo and the CPU quota of the probe's control group, and the versions
// of the libraries probes use.
#include "hetperf/probes/host_facts.hpp"

#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/kernel_probe.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <mpi.h>

#include <fstream>
#include <sstream>
#include <string>

namespace hetperf::probes {
namespace {

std::uint64_t meminfo_kib(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream ss(line.substr(key.size() + 1));
      std::uint64_t v = 0;
      ss >> v;
      return v;
    }
  }
  return 0;
}

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos && colon + 1 < line.size()) return line.substr(colon + 2);
    }
  }
  return {};
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

HostInfo collect_host_info() {
  HostInfo h;
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  h.hostname = name;
  h.cpu_model = cpu_model();
  // The CPUs the probe may run on: with the online count a one-core testbed computer got two cores
  // in its profile, and two ranks of it ran at once in the model where they share one core.
  h.cores = usable_cpus();
  h.cpu_quota = cpu_quota_of_this_process();
  h.memory_bytes = meminfo_kib("MemTotal") * 1024;
  h.swap_bytes = meminfo_kib("SwapTotal") * 1024;
  struct utsname u {};
  if (::uname(&u) == 0) h.kernel = std::string(u.sysname) + " " + u.release;
#if defined(__clang__)
  h.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  h.compiler = "g++ " __VERSION__;
#endif
  h.libraries["nlohmann_json"] = std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                 std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                 std::to_string(NLOHMANN_JSON_VERSION_PATCH);
  h.libraries["openblas"] = openblas_config();
  h.libraries["openblas_core"] = openblas_corename();
  if (std::string w = blas_kernel_warning(openblas_corename(), cpuinfo_field("flags")); !w.empty())
    h.notes.push_back(w);
  h.libraries["google_benchmark"] = google_benchmark_version();
#if defined(MPICH_VERSION)
  h.libraries["mpich"] = MPICH_VERSION;  // headers hetperf-pingpong was built with
#endif
  h.time_utc = utc_now_iso8601();
  return h;
}

}  // namespace hetperf::probes
