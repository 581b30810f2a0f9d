// The testbed (see testbed.hpp): the spec reader, and `up`, `down` and `exec` over iproute2, the
// cgroup file systems and a UTS namespace kept alive by a bind mount (as `ip netns` keeps a network
// namespace).
#include "hetperf/validate/testbed.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/process.hpp"
#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/cleanup.hpp"

namespace hetperf::validate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCgroupPrefix = "hetperf-testbed-";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// "0-3,6" -> {0,1,2,3,6} (the kernel's CPU list format).
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream in(trim(text));
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    auto dash = item.find('-');
    int lo = std::stoi(item.substr(0, dash));
    int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

struct ToolResult {
  int status;
  std::string output;  // standard output and error together
};

// Runs an iproute2 command quietly: its messages are kept for ours.
ToolResult tool(const std::vector<std::string>& argv) {
  CommandResult r = run_command({"sh", "-c", display_command(argv) + " 2>&1"});
  return {r.status, trim(r.output)};
}

void must(const std::vector<std::string>& argv) {
  ToolResult r = tool(argv);
  if (r.status != 0) {
    throw EnvironmentError("testbed: `" + display_command(argv) + "` failed (exit " + std::to_string(r.status) +
                           "): " + r.output);
  }
}

// The cgroup hierarchies the testbed uses: one per controller on v1, the unified one on v2.
struct Hierarchy {
  probes::CgroupRoot root;
  std::vector<std::string> controllers;
};

std::vector<Hierarchy> hierarchies() {
  std::vector<Hierarchy> out;
  for (const char* controller : {"cpu", "cpuset", "memory"}) {
    std::string why;
    auto root = probes::find_cgroup_root(controller, &why);
    if (!root) throw EnvironmentError("testbed: " + why);
    auto same = std::find_if(out.begin(), out.end(), [&](const Hierarchy& h) { return h.root.path == root->path; });
    if (same == out.end())
      out.push_back({*root, {controller}});
    else
      same->controllers.push_back(controller);
  }
  return out;
}

void write_control(const fs::path& file, const std::string& value) {
  std::ofstream out(file);
  out << value;
  out.flush();
  if (!out)
    throw EnvironmentError("testbed: cannot write '" + value + "' to " + file.string() + ": " + std::strerror(errno));
}

std::vector<pid_t> cgroup_pids(const fs::path& dir) {
  std::vector<pid_t> pids;
  std::istringstream in(slurp(dir / "cgroup.procs"));
  long pid;
  while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

void pause_ms(int ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

bool interface_exists(const std::string& name, const std::string& netns = {}) {
  std::vector<std::string> argv = {"ip"};
  if (!netns.empty()) argv.insert(argv.end(), {"-n", netns});
  argv.insert(argv.end(), {"link", "show", "dev", name});
  return tool(argv).status == 0;
}

bool netns_exists(const std::string& name) { return fs::exists(fs::path("/run/netns") / name); }

// The state file: the spec, then every resource, each appended and written (atomically) before it is
// created, so a `kill -9` at any point leaves a file that lists at least what exists.
class State {
 public:
  State(fs::path file, nlohmann::json doc) : file_(std::move(file)), doc_(std::move(doc)) {}
  void add(nlohmann::json resource) {
    doc_["resources"].push_back(std::move(resource));
    save();
  }
  void note(const std::string& text) {
    doc_["notes"].push_back(text);
    save();
  }
  void set_complete() {
    doc_["complete"] = true;
    save();
  }
  void save() const { write_file_atomic(file_, doc_.dump(2) + "\n"); }

 private:
  fs::path file_;
  nlohmann::json doc_;
};

fs::path state_file(const TestbedOptions& o, const std::string& name) { return o.state_dir / (name + ".json"); }

// Held by `up` while it runs and by `down`, so that the two never work on one testbed at once; the
// kernel lets go of it when its holder dies (a `kill -9` of `up`).
class TestbedLock {
 public:
  TestbedLock(const TestbedOptions& o, const std::string& name) : path_(o.state_dir / (name + ".lock")) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw EnvironmentError("testbed: cannot open " + path_.string() + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw EnvironmentError("testbed: another `hetperf testbed up` or `down` of '" + name + "' is running (" +
                             path_.string() + " is locked); wait for it, or stop it");
    }
  }
  ~TestbedLock() { ::close(fd_); }
  TestbedLock(const TestbedLock&) = delete;
  TestbedLock& operator=(const TestbedLock&) = delete;
  void remove_file() const { ::unlink(path_.c_str()); }

 private:
  fs::path path_;
  int fd_ = -1;
};

// Creates a UTS namespace with `hostname` and keeps it alive by bind-mounting it on `file`.
void create_uts_namespace(const fs::path& file, const std::string& hostname) {
  {
    std::ofstream touch(file);
    if (!touch) throw EnvironmentError("testbed: cannot create " + file.string());
  }
  pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError(std::string("testbed: fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Dies with a killed `up`, so that `down` does not race a mount still to come.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() == 1) ::_exit(13);
    if (::unshare(CLONE_NEWUTS) != 0) ::_exit(10);
    if (::sethostname(hostname.c_str(), hostname.size()) != 0) ::_exit(11);
    if (::mount("/proc/self/ns/uts", file.c_str(), nullptr, MS_BIND, nullptr) != 0) ::_exit(12);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    throw EnvironmentError("testbed: cannot make the UTS namespace of " + hostname + " (" +
                           (code == 10   ? "unshare refused"
                            : code == 11 ? "sethostname refused"
                                         : "bind mount on " + file.string() + " refused") +
                           ")");
  }
}

bool is_mount_point(const fs::path& file) {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mounts, line)) {
    std::istringstream in(line);
    std::string id, parent, dev, root, point;
    in >> id >> parent >> dev >> root >> point;
    if (point == file.string()) return true;
  }
  return false;
}

void check_root_and_tools() {
  if (::geteuid() != 0) throw EnvironmentError("testbed: needs root (network namespaces, tc, cgroups)");
  for (const char* t : {"ip", "tc"}) {
    if (!find_on_path(t))
      throw EnvironmentError(std::string("testbed: `") + t + "` not found on PATH (install iproute2)");
  }
}

// The computer's host (cgroup) directories recorded in a state document.
std::vector<fs::path> computer_cgroups(const nlohmann::json& state, const std::string& computer) {
  std::vector<fs::path> dirs;
  for (const auto& r : state["resources"]) {
    if (r.value("kind", "") == "cgroup" && r.value("computer", "") == computer)
      dirs.push_back(r["path"].get<std::string>());
  }
  return dirs;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// The spec

std::vector<int> online_cpus() {
  std::string text = slurp("/sys/devices/system/cpu/online");
  if (trim(text).empty()) {
    std::vector<int> all;
    for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()); ++c) all.push_back(static_cast<int>(c));
    return all;
  }
  return parse_cpu_list(text);
}

TestbedSpec parse_testbed_spec(const nlohmann::json& value, const std::string& file, const std::vector<int>& cpus) {
  JsonNode root(value, file);
  root.schema("testbed", kTestbedSchemaVersion);
  root.known_fields({"schema", "name", "subnet", "cpu_period_us", "computers"});
  TestbedSpec spec;
  spec.name = root.string("name");
  if (!std::regex_match(spec.name, std::regex("[a-z0-9]{1,8}"))) {
    root.field("name").fail("1 to 8 lower-case letters or digits (it prefixes interface names of 15 characters)");
  }
  if (root.has("subnet")) {
    const std::string s = root.string("subnet");
    std::smatch m;
    if (!std::regex_match(s, m, std::regex(R"((\d{1,3})\.(\d{1,3})\.(\d{1,3})\.0/24)")) || std::stoi(m[1]) > 255 ||
        std::stoi(m[2]) > 255 || std::stoi(m[3]) > 255) {
      root.field("subnet").fail("an IPv4 /24 such as \"10.231.0.0/24\"");
    }
    spec.subnet = std::string(m[1]) + "." + std::string(m[2]) + "." + std::string(m[3]);
  }
  spec.cpu_period_us = static_cast<std::uint32_t>(root.integer_or("cpu_period_us", spec.cpu_period_us, 1000, 1000000));
  std::set<std::string> names;
  for (const auto& c : root.array("computers", 1)) {
    c.known_fields({"name", "cores", "cpu_share", "memory_mb", "link"});
    TestbedComputer tc;
    tc.name = c.string("name");
    if (!std::regex_match(tc.name, std::regex("[a-z][a-z0-9-]{0,31}"))) {
      c.field("name").fail("a host name: a lower-case letter, then letters, digits or '-', at most 32 characters");
    }
    if (!names.insert(tc.name).second) c.field("name").fail("a name no other computer of the testbed has");
    for (const auto& core : c.array("cores", 1)) {
      const double v = core.as_number(Range::kNonNegative);
      if (v != std::floor(v) || std::find(cpus.begin(), cpus.end(), static_cast<int>(v)) == cpus.end()) {
        core.fail("a CPU online on this machine (" + cpu_list(cpus) + ")");
      }
      if (std::find(tc.cores.begin(), tc.cores.end(), static_cast<int>(v)) != tc.cores.end()) {
        core.fail("a CPU not listed twice");
      }
      tc.cores.push_back(static_cast<int>(v));
    }
    tc.cpu_share = c.number_or("cpu_share", 1.0, Range::kPositive);
    if (tc.cpu_share < 0.01 || tc.cpu_share > 1) c.field("cpu_share").fail("a fraction of its cores from 0.01 to 1");
    // The kernel refuses a quota under 1 ms; and its runtime is handed out in slices of 5 ms
    // (sched_cfs_bandwidth_slice_us), so a quota well under that is not steady (measured: quota 1 ms
    // in 2 ms gave 0.36 of a core, 5 ms in 10 ms gave 0.49-0.50).
    if (tc.cpu_share < 1 && tc.cpu_share * static_cast<double>(tc.cores.size()) * spec.cpu_period_us < 1000) {
      c.field("cpu_share")
          .fail("a share whose quota (share x cores x cpu_period_us) is at least 1000 µs; raise cpu_period_us");
    }
    tc.memory_mb = static_cast<std::uint64_t>(c.integer("memory_mb", 16, std::int64_t{1} << 30));
    JsonNode link = c.object("link");
    link.known_fields({"rate_mbit", "delay_ms"});
    tc.link.rate_mbit = link.number("rate_mbit", Range::kPositive);
    if (tc.link.rate_mbit < 0.01 || tc.link.rate_mbit > 100000)
      link.field("rate_mbit").fail("a rate from 0.01 to 100000 Mbit/s");
    tc.link.delay_ms = link.number_or("delay_ms", 0.0, Range::kNonNegative);
    if (tc.link.delay_ms > 10000) link.field("delay_ms").fail("a delay of at most 10000 ms");
    spec.computers.push_back(std::move(tc));
  }
  if (spec.computers.size() > 200) root.field("computers").fail("at most 200 computers (one /24)");
  return spec;
}

TestbedSpec read_testbed_spec(const fs::path& file) {
  return parse_testbed_spec(read_json_file(file), file.string(), online_cpus());
}

nlohmann::json to_json(const TestbedSpec& spec) {
  nlohmann::json computers = nlohmann::json::array();
  for (const auto& c : spec.computers) {
    nlohmann::json link = {{"rate_mbit", c.link.rate_mbit}};
    if (c.link.delay_ms > 0) link["delay_ms"] = c.link.delay_ms;
    computers.push_back(
        {{"name", c.name}, {"cores", c.cores}, {"cpu_share", c.cpu_share}, {"memory_mb", c.memory_mb}, {"link", link}});
  }
  return {{"schema", "hetperf.testbed/" + std::to_string(kTestbedSchemaVersion)},
          {"name", spec.name},
          {"subnet", spec.subnet + ".0/24"},
          {"cpu_period_us", spec.cpu_period_us},
          {"computers", computers}};
}

std::string testbed_netns(const TestbedSpec& spec, std::size_t i) {
  return "hetperf-" + spec.name + "-" + spec.computers[i].name;
}
std::string testbed_bridge(const TestbedSpec& spec) { return "hb-" + spec.name; }
std::string testbed_host_veth(const TestbedSpec& spec, std::size_t i) {
  return "hv-" + spec.name + "-" + std::to_string(i);
}
std::string testbed_address(const TestbedSpec& spec, std::size_t i) {
  return spec.subnet + "." + std::to_string(i + 1);
}
std::string testbed_host_address(const TestbedSpec& spec) { return spec.subnet + ".254"; }

std::vector<std::vector<std::string>> shaping_commands(const std::vector<std::string>& prefix, const std::string& dev,
                                                       const TestbedLink& link) {
  const double rate_bps = link.rate_mbit * 1e6;
  const auto burst = static_cast<long long>(std::max(4096.0, rate_bps / 8 * 0.001));
  std::vector<std::vector<std::string>> out;
  auto with = [&](std::vector<std::string> tail) {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), tail.begin(), tail.end());
    out.push_back(argv);
  };
  with({"qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate",
        std::to_string(std::llround(rate_bps)) + "bit", "burst", std::to_string(burst), "latency", "50ms"});
  if (link.delay_ms > 0) {
    char delay[32];
    std::snprintf(delay, sizeof delay, "%.3fms", link.delay_ms);
    with({"qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "netem", "delay", delay});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// up

std::string TestbedUpSummary::brief_report() const {
  std::string s = "testbed up; state in " + state_file.string();
  for (const auto& n : notes) s += "\n  note: " + n;
  return s;
}

std::vector<std::pair<std::string, std::string>> testbed_mpi_environment() {
  std::vector<std::pair<std::string, std::string>> env = {{"UCX_TLS", "tcp,self"}, {"UCX_RNDV_THRESH", "inf"}};
  for (auto& [name, value] : env) {
    if (const char* set = std::getenv(name.c_str())) value = set;  // a setting the user made wins
  }
  return env;
}

std::vector<std::string> testbed_names(const TestbedOptions& o) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(o.state_dir, ec)) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json testbed_state(const std::string& name, const TestbedOptions& o) {
  const fs::path file = state_file(o, name);
  if (!fs::exists(file)) {
    throw EnvironmentError("testbed: no testbed named '" + name + "' is up (no " + file.string() + ")");
  }
  nlohmann::json doc = read_json_file(file);
  JsonNode root(doc, file.string());
  root.schema("testbed-state", 1);
  root.object("spec");
  for (const auto& r : root.array("resources")) r.string("kind");
  return doc;
}

TestbedUpSummary testbed_up(const TestbedSpec& spec, const TestbedOptions& o) {
  check_root_and_tools();
  const auto cgroup_hierarchies = hierarchies();
  fs::create_directories(o.state_dir);
  const fs::path file = state_file(o, spec.name);
  std::optional<TestbedLock> lock(std::in_place, o, spec.name);
  if (fs::exists(file)) {
    const bool complete = read_json_file(file).value("complete", false);
    throw EnvironmentError("testbed: a testbed named '" + spec.name + "' is " +
                           (complete ? "up" : "half-built (its `up` did not finish)") + " (" + file.string() +
                           "); run `hetperf testbed down --name " + spec.name + "` first");
  }
  // Names and addresses must not collide with other testbeds or this host.
  for (const auto& other : testbed_names(o)) {
    const nlohmann::json s = testbed_state(other, o);
    const TestbedSpec os = parse_testbed_spec(s["spec"], state_file(o, other).string(), online_cpus());
    if (os.subnet == spec.subnet) {
      throw EnvironmentError("testbed: subnet " + spec.subnet + ".0/24 is used by testbed '" + other +
                             "'; give \"subnet\" another /24");
    }
    for (const auto& c : spec.computers) {
      for (const auto& d : os.computers) {
        if (c.name == d.name)
          throw EnvironmentError("testbed: computer name '" + c.name + "' is used by testbed '" + other + "'");
      }
    }
  }
  if (tool({"sh", "-c", "ip -4 -o addr show | grep -q ' " + spec.subnet + "\\.'"}).status == 0) {
    throw EnvironmentError("testbed: subnet " + spec.subnet +
                           ".0/24 is already in use on this host; give \"subnet\" another /24");
  }
  if (interface_exists(testbed_bridge(spec))) {
    throw EnvironmentError("testbed: interface " + testbed_bridge(spec) + " already exists (not ours: no state file)");
  }

  char hostname[256] = {};
  ::gethostname(hostname, sizeof hostname - 1);
  nlohmann::json doc = {{"schema", "hetperf.testbed-state/1"},
                        {"command", o.command},
                        {"spec", to_json(spec)},
                        {"host_hostname", hostname},
                        {"host_address", testbed_host_address(spec)},
                        {"complete", false},
                        {"resources", nlohmann::json::array()},
                        {"notes", nlohmann::json::array()}};
  State state(file, doc);
  state.save();
  TestbedUpSummary summary;
  summary.state_file = file;
  probes::install_cleanup_handlers();
  try {
    auto step = [&](nlohmann::json resource) {
      probes::throw_if_interrupted();
      pause_ms(o.step_delay_ms);
      state.add(std::move(resource));
    };
    const fs::path uts_dir = o.state_dir / spec.name;
    step({{"kind", "directory"}, {"path", uts_dir.string()}});
    fs::create_directories(uts_dir);

    const std::string bridge = testbed_bridge(spec);
    step({{"kind", "link"}, {"name", bridge}});
    must({"ip", "link", "add", bridge, "type", "bridge"});
    must({"ip", "addr", "add", testbed_host_address(spec) + "/24", "dev", bridge});
    must({"ip", "link", "set", bridge, "up"});

    // Cgroup parents: on v1 a cpuset needs cpus and mems before children can have them.
    for (const auto& h : cgroup_hierarchies) {
      const fs::path parent = h.root.path / (kCgroupPrefix + spec.name);
      step({{"kind", "cgroup"}, {"path", parent.string()}, {"computer", ""}});
      if (::mkdir(parent.c_str(), 0755) != 0)
        throw EnvironmentError("testbed: cannot create cgroup " + parent.string() + ": " + std::strerror(errno));
      const bool has_cpuset = std::count(h.controllers.begin(), h.controllers.end(), "cpuset") > 0;
      if (h.root.version == 1 && has_cpuset) {
        write_control(parent / "cpuset.cpus", slurp(h.root.path / "cpuset.cpus"));
        write_control(parent / "cpuset.mems", slurp(h.root.path / "cpuset.mems"));
      }
      // The computers' weight is 100 times a plain process's: the box's other work (a build) then
      // barely slows them, and an uncapped computer keeps its whole core (measured: under a load of
      // 6 on 2 cores an uncapped computer ran at a third of its speed with the default weight).
      const bool has_cpu = std::count(h.controllers.begin(), h.controllers.end(), "cpu") > 0;
      if (has_cpu)
        write_control(parent / (h.root.version == 1 ? "cpu.shares" : "cpu.weight"),
                      h.root.version == 1 ? "102400" : "10000");
      if (h.root.version == 2) {
        std::string enable;
        for (const auto& c : h.controllers) enable += (enable.empty() ? "+" : " +") + c;
        write_control(parent / "cgroup.subtree_control", enable);
      }
    }

    std::string hosts = "127.0.0.1\tlocalhost\n" + testbed_host_address(spec) + "\t" + hostname + "\n";
    for (std::size_t i = 0; i < spec.computers.size(); ++i)
      hosts += testbed_address(spec, i) + "\t" + spec.computers[i].name + "\n";

    bool netem_missing = false;
    for (std::size_t i = 0; i < spec.computers.size(); ++i) {
      const TestbedComputer& c = spec.computers[i];
      const std::string ns = testbed_netns(spec, i), veth = testbed_host_veth(spec, i);

      const fs::path etc = fs::path("/etc/netns") / ns;
      step({{"kind", "directory"}, {"path", etc.string()}});
      write_file_atomic(etc / "hosts", "# hetperf testbed " + spec.name + ": the computers and this host\n" + hosts);
      // No name server: a lookup of an unknown name fails at once instead of waiting on an unreachable one.
      write_file_atomic(etc / "resolv.conf", "# hetperf testbed " + spec.name + ": no DNS inside a computer\n");

      step({{"kind", "netns"}, {"name", ns}});
      must({"ip", "netns", "add", ns});
      step({{"kind", "link"}, {"name", veth}});
      must({"ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns});
      must({"ip", "link", "set", veth, "master", bridge, "up"});
      must({"ip", "-n", ns, "addr", "add", testbed_address(spec, i) + "/24", "dev", "eth0"});
      must({"ip", "-n", ns, "link", "set", "lo", "up"});
      must({"ip", "-n", ns, "link", "set", "eth0", "up"});
      // Both directions: what the computer sends (its eth0) and what it receives (the bridge's port).
      for (const auto& [prefix, dev] : {std::pair<std::vector<std::string>, std::string>{{"tc", "-n", ns}, "eth0"},
                                        std::pair<std::vector<std::string>, std::string>{{"tc"}, veth}}) {
        for (const auto& cmd : shaping_commands(prefix, dev, c.link)) {
          ToolResult r = tool(cmd);
          if (r.status == 0) continue;
          if (std::find(cmd.begin(), cmd.end(), "netem") != cmd.end() &&
              r.output.find("unknown") != std::string::npos) {
            netem_missing = true;
            continue;
          }
          throw EnvironmentError("testbed: `" + display_command(cmd) + "` failed: " + r.output);
        }
      }

      const fs::path uts = uts_dir / ("uts-" + c.name);
      step({{"kind", "uts"}, {"path", uts.string()}});
      create_uts_namespace(uts, c.name);

      for (const auto& h : cgroup_hierarchies) {
        const fs::path dir = h.root.path / (kCgroupPrefix + spec.name) / c.name;
        step({{"kind", "cgroup"}, {"path", dir.string()}, {"computer", c.name}});
        if (::mkdir(dir.c_str(), 0755) != 0)
          throw EnvironmentError("testbed: cannot create cgroup " + dir.string() + ": " + std::strerror(errno));
        const auto has = [&](const char* k) { return std::count(h.controllers.begin(), h.controllers.end(), k) > 0; };
        const long long quota = std::llround(c.cpu_share * static_cast<double>(c.cores.size()) * spec.cpu_period_us);
        const bool capped = c.cpu_share < 1;
        const std::string memory = std::to_string(c.memory_mb << 20);
        if (h.root.version == 1) {
          if (has("cpuset")) {
            write_control(dir / "cpuset.cpus", cpu_list(c.cores));
            write_control(dir / "cpuset.mems", slurp(h.root.path / "cpuset.mems"));
          }
          if (has("cpu")) {
            write_control(dir / "cpu.cfs_period_us", std::to_string(spec.cpu_period_us));
            write_control(dir / "cpu.cfs_quota_us", capped ? std::to_string(quota) : "-1");
          }
          if (has("memory")) write_control(dir / "memory.limit_in_bytes", memory);
        } else {
          if (has("cpuset")) write_control(dir / "cpuset.cpus", cpu_list(c.cores));
          if (has("cpu"))
            write_control(dir / "cpu.max",
                          (capped ? std::to_string(quota) : "max") + " " + std::to_string(spec.cpu_period_us));
          if (has("memory")) write_control(dir / "memory.max", memory);
        }
      }
    }
    if (netem_missing) {
      const std::string n =
          "delay not emulated: this kernel has no netem qdisc (tc: \"Specified qdisc kind is unknown\"); "
          "the links have their tbf rates but only the veth's own latency";
      summary.notes.push_back(n);
      state.note(n);
    }
    probes::throw_if_interrupted();
    state.set_complete();
  } catch (...) {
    // Nothing half-built is left behind: remove what was made (the state file says what), then report.
    TestbedOptions quiet = o;
    quiet.step_delay_ms = 0;
    lock.reset();
    try {
      testbed_down(spec.name, quiet);
    } catch (const std::exception&) {
      // The state file stays; `down` names it in the refusal of the next `up`.
    }
    throw;
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------------
// down

TestbedDownSummary testbed_down(const std::string& name, const TestbedOptions& o) {
  check_root_and_tools();
  const fs::path file = state_file(o, name);
  const nlohmann::json state = testbed_state(name, o);
  const TestbedLock lock(o, name);
  TestbedDownSummary summary;
  const auto& resources = state["resources"];

  // First every process inside a computer: those in its cgroups and those in its network namespace
  // (which may have left the cgroups). Repeated until none is left, as a dying parent may fork.
  for (int round = 0; round < 50; ++round) {
    std::set<pid_t> pids;
    for (const auto& r : resources) {
      const std::string kind = r["kind"];
      if (kind == "cgroup") {
        for (pid_t p : cgroup_pids(r["path"].get<std::string>())) pids.insert(p);
      } else if (kind == "netns" && netns_exists(r["name"])) {
        std::istringstream in(tool({"ip", "netns", "pids", r["name"].get<std::string>()}).output);
        long p;
        while (in >> p) pids.insert(static_cast<pid_t>(p));
      }
    }
    pids.erase(::getpid());
    if (pids.empty()) break;
    for (pid_t p : pids) {
      if (::kill(p, SIGKILL) == 0 && round == 0) ++summary.processes_killed;
    }
    pause_ms(round < 5 ? 20 : 100);
  }

  for (auto it = resources.rbegin(); it != resources.rend(); ++it) {
    const nlohmann::json& r = *it;
    const std::string kind = r["kind"];
    const std::string what = r.contains("path") ? r["path"].get<std::string>() : r.value("name", "");
    auto problem = [&](const std::string& why) { summary.problems.push_back(kind + " " + what + ": " + why); };
    std::error_code ec;
    if (kind == "cgroup") {
      if (!fs::exists(what)) continue;
      bool removed = false;
      for (int attempt = 0; attempt < 100 && !removed; ++attempt) {
        removed = ::rmdir(what.c_str()) == 0 || errno == ENOENT;
        if (!removed) pause_ms(20);
      }
      if (removed)
        summary.removed.push_back("cgroup " + what);
      else
        problem(std::string("rmdir refused: ") + std::strerror(errno));
    } else if (kind == "netns") {
      if (!netns_exists(what)) continue;
      ToolResult t = tool({"ip", "netns", "del", what});
      if (t.status == 0)
        summary.removed.push_back("network namespace " + what);
      else
        problem(t.output);
    } else if (kind == "link") {
      if (!interface_exists(what)) continue;  // a veth goes with its namespace
      ToolResult t = tool({"ip", "link", "del", what});
      if (t.status == 0)
        summary.removed.push_back("interface " + what);
      else if (interface_exists(what))
        problem(t.output);
    } else if (kind == "uts") {
      // The child of a killed `up` may still be mounting it: unmount and remove until it is gone.
      bool gone = false;
      for (int attempt = 0; attempt < 50 && !gone; ++attempt) {
        if (is_mount_point(what)) ::umount2(what.c_str(), MNT_DETACH);
        gone = (fs::remove(what, ec) || !fs::exists(what)) && !is_mount_point(what);
        if (!gone) pause_ms(20);
      }
      if (gone)
        summary.removed.push_back("UTS namespace " + what);
      else
        problem("still mounted or busy");
    } else if (kind == "directory") {
      if (fs::remove_all(what, ec) > 0) summary.removed.push_back("directory " + what);
      if (ec) problem(ec.message());
    } else {
      problem("unknown kind of resource in the state file");
    }
  }
  if (summary.problems.empty()) {
    fs::remove(file);
    lock.remove_file();
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------------
// exec

void testbed_exec(const std::string& testbed, const std::string& computer, const std::vector<std::string>& argv,
                  const TestbedOptions& o) {
  if (argv.empty()) throw InputError("testbed exec: expected a command to run after the computer's name");
  check_root_and_tools();
  std::vector<std::string> candidates = testbed.empty() ? testbed_names(o) : std::vector<std::string>{testbed};
  std::vector<std::pair<std::string, nlohmann::json>> found;
  std::string known;
  for (const auto& name : candidates) {
    nlohmann::json state = testbed_state(name, o);
    for (const auto& c : state["spec"]["computers"]) {
      known += (known.empty() ? "" : ", ") + c["name"].get<std::string>();
      if (c["name"] == computer) found.emplace_back(name, state);
    }
  }
  if (found.empty()) {
    throw EnvironmentError(
        "testbed: no computer named '" + computer + "' in " +
        (testbed.empty() ? "the testbeds that are up" : "testbed '" + testbed + "'") +
        (known.empty() ? " (none is up: hetperf testbed up --spec FILE)" : " (computers: " + known + ")"));
  }
  if (found.size() > 1)
    throw EnvironmentError("testbed: computer '" + computer + "' is in more than one testbed; name one with --testbed");
  const auto& [name, state] = found.front();
  if (!state.value("complete", false)) {
    throw EnvironmentError("testbed: '" + name +
                           "' is half-built (its `up` did not finish); run `hetperf testbed down --name " + name + "`");
  }
  for (const auto& dir : computer_cgroups(state, computer))
    write_control(dir / "cgroup.procs", std::to_string(::getpid()));
  std::string netns, uts;
  for (const auto& r : state["resources"]) {
    if (r["kind"] == "uts" && fs::path(r["path"].get<std::string>()).filename() == "uts-" + computer) uts = r["path"];
    if (r["kind"] == "netns" && r["name"].get<std::string>() == "hetperf-" + name + "-" + computer) netns = r["name"];
  }
  // nsenter and unshare (util-linux), not `ip netns exec`: that one mounts a /sys of the namespace's
  // own, without the cgroup trees, and a launcher started inside one computer (mpiexec there) must
  // still put ranks into the cgroups of another. The computer's /etc/hosts and /etc/resolv.conf
  // (/etc/netns/<netns>/) are bound over the host's in a mount namespace of the command's own.
  const std::string binds =
      "for f in hosts resolv.conf; do if [ -e \"/etc/$f\" ]; then mount --bind \"$0/$f\" \"/etc/$f\" || exit 125; fi; "
      "done; exec \"$@\"";
  std::vector<std::string> full = {
      "nsenter", "--net=/run/netns/" + netns, "--uts=" + uts, "--", "unshare", "--mount", "--", "sh", "-c",
      binds,     "/etc/netns/" + netns};
  full.insert(full.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (auto& a : full) args.push_back(a.data());
  args.push_back(nullptr);
  for (const auto& [variable, value] : testbed_mpi_environment()) ::setenv(variable.c_str(), value.c_str(), 1);
  ::execvp(args[0], args.data());
  throw EnvironmentError(std::string("testbed: cannot run nsenter (util-linux): ") + std::strerror(errno));
}

}  // namespace hetperf::validate
