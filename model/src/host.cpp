// HostInfo <-> JSON.
#include "hetperf/model/host.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>

#include "hetperf/model/json_node.hpp"

namespace hetperf {

nlohmann::json to_json(const HostInfo& h) {
  nlohmann::json j = {{"hostname", h.hostname},         {"cpu_model", h.cpu_model},   {"cores", h.cores},
                      {"memory_bytes", h.memory_bytes}, {"swap_bytes", h.swap_bytes}, {"kernel", h.kernel},
                      {"compiler", h.compiler},         {"libraries", h.libraries},   {"time_utc", h.time_utc}};
  if (!h.notes.empty()) j["notes"] = h.notes;
  if (h.cpu_quota) j["cpu_quota"] = {{"share", h.cpu_quota->share}, {"period_s", h.cpu_quota->period_s}};
  return j;
}

HostInfo host_info_from_json(const JsonNode& node) {
  node.known_fields({"hostname", "cpu_model", "cores", "memory_bytes", "swap_bytes", "kernel", "compiler", "libraries",
                     "time_utc", "notes", "cpu_quota"});
  HostInfo h;
  h.hostname = node.string("hostname");
  h.cpu_model = node.string_or("cpu_model", "");
  h.cores = static_cast<int>(node.integer("cores", 1, 1 << 20));
  h.memory_bytes = static_cast<std::uint64_t>(node.integer_or("memory_bytes", 0, 0, INT64_MAX));
  h.swap_bytes = static_cast<std::uint64_t>(node.integer_or("swap_bytes", 0, 0, INT64_MAX));
  h.kernel = node.string_or("kernel", "");
  h.compiler = node.string_or("compiler", "");
  if (auto libs = node.optional("libraries")) {
    if (!libs->is_object()) libs->fail("an object of library -> version strings");
    for (auto& [name, version] : libs->value().items()) h.libraries[name] = libs->string(name);
  }
  h.time_utc = node.string_or("time_utc", "");
  if (auto notes = node.optional("notes")) {
    for (const JsonNode& n : notes->items()) h.notes.push_back(n.as_string());
  }
  if (auto q = node.optional("cpu_quota")) {
    q->known_fields({"share", "period_s"});
    CpuQuota quota;
    quota.share = q->number("share", Range::kPositive);
    quota.period_s = q->number("period_s", Range::kPositive);
    if (quota.period_s > 10) q->field("period_s").fail("a period of at most 10 s");
    h.cpu_quota = quota;
  }
  return h;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
}

std::optional<std::uint64_t> meminfo_bytes(std::string_view key) {
  std::ifstream in("/proc/meminfo");
  std::string name, unit;
  std::uint64_t kib = 0;
  while (in >> name >> kib) {
    if (name.size() == key.size() + 1 && name.back() == ':' && name.compare(0, key.size(), key) == 0) return kib * 1024;
    std::getline(in, unit);  // " kB", or nothing for the counts (HugePages_Total)
  }
  return std::nullopt;
}

std::optional<std::uint64_t> available_memory_bytes() {
  std::optional<std::uint64_t> available = meminfo_bytes("MemAvailable");
  // A limit on the address space (ulimit -v, a harness's memory cap) allows less than the machine has.
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
    available = available ? std::min(*available, cap) : cap;
  }
  return available;
}

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace hetperf
