// cgroup v1/v2 helpers: find the hierarchy of a controller, create, write, remove.
#include "hetperf/probes/cgroup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "hetperf/model/error.hpp"

namespace hetperf::probes {
namespace {

bool has_word(const std::string& text, const std::string& word, char separator) {
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, separator)) {
    while (!item.empty() && (item.back() == '\n' || item.back() == ' ')) item.pop_back();
    if (item == word) return true;
  }
  return false;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<CgroupRoot> find_cgroup_root(const std::string& controller, std::string* why) {
  std::ifstream mounts("/proc/mounts");
  std::string device, dir, type, options, rest;
  std::optional<CgroupRoot> v2;
  std::string reasons;
  while (mounts >> device >> dir >> type >> options && std::getline(mounts, rest)) {
    if (type == "cgroup" && has_word(options, controller, ',')) return CgroupRoot{dir, 1};
    if (type == "cgroup2") {
      std::string available = slurp(std::filesystem::path(dir) / "cgroup.controllers");
      std::string enabled = slurp(std::filesystem::path(dir) / "cgroup.subtree_control");
      if (has_word(available, controller, ' ') && has_word(enabled, controller, ' ')) {
        v2 = CgroupRoot{dir, 2};
      } else {
        reasons = "cgroup2 at " + dir + " does not offer the " + controller + " controller to child groups";
      }
    }
  }
  if (v2) return v2;
  if (why)
    *why = "no cgroup hierarchy with the " + controller + " controller" + (reasons.empty() ? "" : " (" + reasons + ")");
  return std::nullopt;
}

namespace {

// Calls `visit` with the directory of this process's group in the hierarchy of `controller` and then
// of each of its ancestors up to the root (from /proc/self/cgroup and /proc/mounts), and the
// hierarchy's version; nothing where the controller has no hierarchy or this process is in none.
void for_own_groups(const std::string& controller,
                    const std::function<void(const std::filesystem::path&, int version)>& visit) {
  std::ifstream self("/proc/self/cgroup");
  std::string line, v1_path, v2_path;
  bool v1 = false, v2 = false;
  while (std::getline(self, line)) {
    const auto a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty())
      v2 = true, v2_path = path;
    else if (has_word(controllers, controller, ','))
      v1 = true, v1_path = path;
  }
  const auto mount = find_cgroup_root(controller, nullptr);
  if (!mount || (mount->version == 1 ? !v1 : !v2)) return;
  for (std::filesystem::path group = mount->version == 1 ? v1_path : v2_path;; group = group.parent_path()) {
    visit(mount->path / group.relative_path(), mount->version);
    if (!group.has_relative_path() || group == group.parent_path()) break;
  }
}

}  // namespace

std::optional<CpuQuota> cpu_quota_of_this_process() {
  std::optional<CpuQuota> tightest;
  for_own_groups("cpu", [&](const std::filesystem::path& at, int version) {
    double quota = -1, period = 0;
    if (version == 1) {
      std::istringstream(slurp(at / "cpu.cfs_quota_us")) >> quota;
      std::istringstream(slurp(at / "cpu.cfs_period_us")) >> period;
    } else {
      std::string q;
      std::istringstream in(slurp(at / "cpu.max"));
      if (in >> q >> period && q != "max") quota = std::strtod(q.c_str(), nullptr);
    }
    if (quota > 0 && period > 0 && (!tightest || quota / period < tightest->share)) {
      tightest = CpuQuota{quota / period, period * 1e-6};
    }
  });
  return tightest;
}

std::optional<std::uint64_t> memory_headroom_of_this_process() {
  std::optional<std::uint64_t> tightest;
  for_own_groups("memory", [&](const std::filesystem::path& at, int version) {
    // v1 writes "no limit" as a huge number (PAGE_COUNTER_MAX pages), v2 as "max": neither parses below.
    unsigned long long limit = 0, usage = 0;
    std::string text = slurp(at / (version == 1 ? "memory.limit_in_bytes" : "memory.max"));
    if (!(std::istringstream(text) >> limit) || limit == 0 || limit >= (1ULL << 60)) return;
    std::istringstream(slurp(at / (version == 1 ? "memory.usage_in_bytes" : "memory.current"))) >> usage;
    // The usage counts the page cache, whose inactive files the group reclaims before it runs out (as
    // MemAvailable counts them available): a group that wrote its disk files is not full.
    std::istringstream stat(slurp(at / "memory.stat"));
    std::string key;
    unsigned long long value = 0, reclaimable = 0;
    while (stat >> key >> value) {
      if (key == (version == 1 ? "total_inactive_file" : "inactive_file")) reclaimable = value;
    }
    usage -= std::min(usage, reclaimable);
    const std::uint64_t headroom = usage < limit ? limit - usage : 0;
    if (!tightest || headroom < *tightest) tightest = headroom;
  });
  return tightest;
}

Cgroup::Cgroup(std::filesystem::path path, int version)
    : path_(std::move(path)), version_(version), registration_(CleanupKind::kRemoveDirectory, path_) {}

std::unique_ptr<Cgroup> Cgroup::create(const std::string& controller, const std::string& name) {
  std::string why;
  auto root = find_cgroup_root(controller, &why);
  if (!root) throw EnvironmentError(why);
  std::filesystem::path p = root->path / name;
  if (::mkdir(p.c_str(), 0755) != 0) {
    throw EnvironmentError("cannot create cgroup " + p.string() + ": " + std::strerror(errno));
  }
  return std::unique_ptr<Cgroup>(new Cgroup(p, root->version));
}

bool remove_cgroup_directory(const std::filesystem::path& path) {
  for (int attempt = 0;; ++attempt) {
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
    if (attempt == 99) return false;  // errno is the last rmdir's
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Cgroup::~Cgroup() { remove_cgroup_directory(path_); }

void Cgroup::write(const std::string& file, const std::string& value) const {
  std::ofstream out(path_ / file);
  out << value;
  out.flush();
  if (!out) throw EnvironmentError("cannot write '" + value + "' to " + (path_ / file).string());
}

std::string Cgroup::read(const std::string& file) const { return slurp(path_ / file); }

void Cgroup::add_process(pid_t pid) const { write("cgroup.procs", std::to_string(pid)); }

}  // namespace hetperf::probes
