// Binding a workload to a platform profile (see bind.hpp).
#include "hetperf/model/bind.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "hetperf/model/error.hpp"

namespace hetperf {
namespace {

constexpr const char* kLuKernels[] = {"dgemm", "dtrsm", "dgetrf", "dlaswp"};

class Binder {
 public:
  Binder(const Workload& w, const Profile& p)
      : w_(w),
        p_(p),
        wfile_(w.file.empty() ? "the workload" : w.file),
        pfile_(p.file.empty() ? "the profile" : p.file) {}

  Binding run() {
    Binding b;
    disciplines();
    for (const ProcessSpec& s : w_.processes) b.processes.push_back(process(s, s.json_path));
    for (const ArrivalGenerator& g : w_.generators)
      b.generators.push_back(process(g.process, g.json_path + ".process"));
    for (const AppJobSpec& app : w_.apps) b.app_mappings.push_back(app_job(app));
    for (const BatchJob& job : w_.jobs) batch_job(job);
    return b;
  }

 private:
  // --- names ---
  std::size_t computer(const std::string& name, const std::string& path) const {
    if (auto c = p_.find(name)) return *c;
    throw InputError(wfile_ + ": " + path + ": expected the name of a computer of the profile " + pfile_ + ", got \"" +
                     name + "\"");
  }

  std::optional<PeerRef> peer(const ProcessSpec& s, const std::string& path) const {
    if (s.peer.empty()) return std::nullopt;
    for (std::size_t i = 0; i < w_.processes.size(); ++i) {
      const ProcessSpec& other = w_.processes[i];
      if (other.name != s.peer) continue;
      if (other.count != 1) {
        throw InputError(wfile_ + ": " + path + ": expected a computer of the profile " + pfile_ +
                         " or a process listed with count 1, got \"" + s.peer + "\" which stands for " +
                         std::to_string(other.count) + " processes");
      }
      return PeerRef{PeerRef::Kind::kProcess, i};
    }
    if (auto c = p_.find(s.peer)) return PeerRef{PeerRef::Kind::kComputer, *c};
    throw InputError(wfile_ + ": " + path + ": expected the name of a computer of the profile " + pfile_ +
                     " or of a process listed with count 1, got \"" + s.peer + "\"");
  }

  // "policy.discipline" names computers or computer groups of the profile.
  void disciplines() const {
    for (const auto& [name, d] : w_.policy.discipline.by_name) {
      bool known = p_.find(name).has_value();
      for (const Computer& c : p_.computers) known |= !c.group.empty() && c.group == name;
      if (!known) {
        throw InputError(wfile_ + ": $.policy.discipline." + name +
                         ": expected \"default\", the name of a computer of the profile " + pfile_ +
                         " or of a computer group, got \"" + name + "\"");
      }
    }
  }

  // --- figures ---
  std::string computer_path(std::size_t c) const {
    const Computer& comp = p_.computers[c];
    return comp.json_path.empty() ? "$.computers[" + std::to_string(c) + "]" : comp.json_path;
  }

  // `needed_by` names the workload file, the JSON path and the job or process.
  [[noreturn]] void missing(const std::string& profile_path, const std::string& what,
                            const std::string& needed_by) const {
    throw InputError(pfile_ + ": " + profile_path + ": " + what + ", needed by " + needed_by);
  }

  // The computer's name when its entry stands for several ("count" in the profile).
  std::string named(std::size_t c) const {
    const Computer& comp = p_.computers[c];
    bool shared = !comp.json_path.empty() &&
                  std::any_of(p_.computers.begin(), p_.computers.end(),
                              [&](const Computer& o) { return &o != &comp && o.json_path == comp.json_path; });
    return shared ? " for computer \"" + comp.name + "\"" : "";
  }

  std::string at(const std::string& path) const { return wfile_ + ": " + path; }

  void require_disk_read(std::size_t c, const std::string& needed_by) const {
    if (!(p_.computers[c].disk_read_bytes_per_s > 0)) {
      missing(computer_path(c) + ".disk_read_bytes_per_s", "missing" + named(c), needed_by);
    }
  }
  void require_disk_write(std::size_t c, const std::string& needed_by) const {
    if (!(p_.computers[c].disk_write_bytes_per_s > 0)) {
      missing(computer_path(c) + ".disk_write_bytes_per_s", "missing" + named(c), needed_by);
    }
  }
  void require_network(const std::string& needed_by) const {
    if (!(p_.network.bandwidth_bytes_per_s > 0)) missing("$.network.bandwidth_bytes_per_s", "missing", needed_by);
  }
  void require_lu_kernels(std::size_t c, const std::string& needed_by) const {
    const Computer& comp = p_.computers[c];
    for (const char* kernel : kLuKernels) {
      // A model fitted on the application's traces serves as well ("dgemm" is its "gemm").
      bool present = std::any_of(comp.kernels.begin(), comp.kernels.end(),
                                 [&](const KernelModel& k) { return k.kernel == kernel; }) ||
                     comp.app_models.find(kernel + 1) != nullptr;
      if (!present) {
        missing(
            computer_path(c) + ".kernels", std::string("no ") + kernel + " model" + named(c),
            needed_by + "; probe with the cpu probe's kernels, then calibrate (or calibrate --trace with LU traces)");
      }
    }
  }
  void require_integration_step(std::size_t c, const std::string& needed_by) const {
    if (!p_.computers[c].integration_step_s && !p_.computers[c].app_models.find("integrate")) {
      missing(computer_path(c) + ".integration_step_s", "missing" + named(c),
              needed_by + "; probe with the cpu probe, then calibrate");
    }
  }

  // --- processes ---
  static bool certainly_zero(const Distribution& d) { return d.is_constant() && d.a == 0; }

  BoundProcess process(const ProcessSpec& s, const std::string& path) const {
    BoundProcess b;
    if (!s.computer.empty()) b.computer = computer(s.computer, path + ".computer");
    b.peer = peer(s, path + ".messages.peer");
    const std::string who = " (process \"" + s.name + "\")";
    for (std::size_t c = 0; c < p_.computers.size(); ++c) {
      if (b.computer && *b.computer != c) continue;
      if (!certainly_zero(s.disk_read_ops)) require_disk_read(c, at(path + ".disk_read") + who);
      if (!certainly_zero(s.disk_write_ops)) require_disk_write(c, at(path + ".disk_write") + who);
    }
    if (!certainly_zero(s.messages)) require_network(at(path + ".messages") + who);
    return b;
  }

  // --- application jobs ---
  std::vector<std::size_t> app_job(const AppJobSpec& app) const {
    const RankMappingSpec& m = app.mapping;
    std::vector<std::size_t> computers;
    for (std::size_t i = 0; i < m.computers.size(); ++i) {
      computers.push_back(computer(m.computers[i], app.json_path + ".computers[" + std::to_string(i) + "]"));
    }
    if (m.computers.empty()) {
      for (std::size_t c = 0; c < p_.computers.size(); ++c) computers.push_back(c);
    }
    const std::size_t ranks = static_cast<std::size_t>(app.total_ranks()), count = computers.size();
    std::vector<std::size_t> mapping(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      switch (m.rule) {
        case RankMappingSpec::Rule::kCyclic:
          mapping[r] = computers[r % count];
          break;
        case RankMappingSpec::Rule::kBlock:
          mapping[r] = computers[r * count / ranks];
          break;
        case RankMappingSpec::Rule::kList:
          mapping[r] = computer(m.ranks[r], app.json_path + ".mapping[" + std::to_string(r) + "]");
          break;
      }
    }
    const std::string needed_by = at(app.json_path) + " (app \"" + app.name + "\")";
    std::set<std::size_t> checked;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (app.kind == AppKind::kLu) {
        if (checked.insert(mapping[r]).second) require_lu_kernels(mapping[r], needed_by);
        continue;
      }
      if (r % static_cast<std::size_t>(app.ranks) == 0 || !checked.insert(mapping[r]).second) continue;  // a master
      require_integration_step(mapping[r], needed_by);
      if (app.integrate.disk_bytes > 0) require_disk_write(mapping[r], needed_by);
    }
    // Ranks on one computer whose local messages were calibrated on traces need no network.
    const bool local =
        std::all_of(mapping.begin(), mapping.end(), [&](std::size_t c) { return c == mapping.front(); }) &&
        p_.computers[mapping.front()].app_models.messages.has_value();
    if (ranks > 1 && !local) require_network(needed_by);
    return mapping;
  }

  // --- batch jobs whose application model is simulated on the profile's first cores ---
  void batch_job(const BatchJob& job) const {
    if (!job.app || job.app->kind == BatchAppModel::Kind::kTable) return;
    const BatchAppModel& app = *job.app;
    const bool lu = app.kind == BatchAppModel::Kind::kLu;
    std::vector<std::size_t> cores;  // the computer of each core, in profile order
    for (std::size_t c = 0; c < p_.computers.size(); ++c)
      cores.insert(cores.end(), static_cast<std::size_t>(p_.computers[c].cores), c);
    const std::string where = job.where + ".app";
    if (!lu && cores.size() < 2) {
      throw InputError(where + ": expected an application that fits the profile " + pfile_ +
                       " (an integration needs 2 cores, a master and a worker), got \"integrate\" on its 1 core");
    }
    const std::size_t top =
        lu ? std::min<std::size_t>(cores.size(), static_cast<std::size_t>(app.lu.n / app.lu.r)) : cores.size();
    const std::string needed_by = where + " (an \"" + (lu ? "lu" : "integrate") +
                                  "\" model simulated on the profile's first " + std::to_string(top) + " cores)";
    std::set<std::size_t> checked;
    for (std::size_t k = lu ? 0 : 1; k < top; ++k) {
      if (!checked.insert(cores[k]).second) continue;
      if (lu) {
        require_lu_kernels(cores[k], needed_by);
      } else {
        require_integration_step(cores[k], needed_by);
        if (app.integrate.disk_bytes > 0) require_disk_write(cores[k], needed_by);
      }
    }
    if (top > 1) require_network(needed_by);
  }

  const Workload& w_;
  const Profile& p_;
  const std::string wfile_, pfile_;
};

}  // namespace

Binding bind(const Workload& workload, const Profile& profile) { return Binder(workload, profile).run(); }

}  // namespace hetperf
