// The placement policy registry and the built-in policies.
#include "hetperf/simulator/placement.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "hetperf/model/error.hpp"

namespace hetperf::sim {
namespace {

struct Entry {
  std::string description;
  PlacementFactory factory;
};

std::map<std::string, Entry>& registry() {
  static std::map<std::string, Entry> r;
  return r;
}

// Lowest score wins; ties go to the lowest index, so choices are deterministic.
template <typename Score>
std::size_t argmin(std::size_t n, Score score) {
  std::size_t best = 0;
  double best_score = score(0);
  for (std::size_t i = 1; i < n; ++i) {
    double s = score(i);
    if (s < best_score) {
      best = i;
      best_score = s;
    }
  }
  return best;
}

class RoundRobin final : public PlacementPolicy {
 public:
  std::size_t place(const std::vector<Computer>& computers, const std::vector<ComputerLoad>&, const PlacementRequest&,
                    Rng&) override {
    return next_++ % computers.size();
  }

 private:
  std::size_t next_ = 0;
};

class Random final : public PlacementPolicy {
 public:
  std::size_t place(const std::vector<Computer>& computers, const std::vector<ComputerLoad>&, const PlacementRequest&,
                    Rng& rng) override {
    return rng.index(computers.size());
  }
};

// Fewest resident processes per core, ties to the first computer. Arrivals come by the million, so
// the policy keeps a tournament tree over the computers (updated in O(log n) when a computer's resident
// count changes) and compares resident_i / cores_i by cross-multiplying integers.
class LeastLoaded final : public PlacementPolicy {
 public:
  std::size_t place(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load,
                    const PlacementRequest&, Rng&) override {
    if (cores_.size() != computers.size()) build(computers, load);
    return tree_[1];
  }

  void resident_changed(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load,
                        std::size_t computer) override {
    if (cores_.size() != computers.size()) return;  // built at the first placement
    resident_[computer] = load[computer].resident;
    for (std::size_t node = (leaves_ + computer) / 2; node >= 1; node /= 2) {
      tree_[node] = better(tree_[2 * node], tree_[2 * node + 1]);
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;

  std::uint32_t better(std::uint32_t x, std::uint32_t y) const {
    if (x == kEmpty) return y;
    if (y == kEmpty) return x;
    std::uint64_t lx = resident_[x] * cores_[y], ly = resident_[y] * cores_[x];
    return ly < lx || (ly == lx && y < x) ? y : x;
  }

  void build(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load) {
    cores_.clear();
    resident_.clear();
    for (std::size_t i = 0; i < computers.size(); ++i) {
      cores_.push_back(static_cast<std::uint64_t>(computers[i].cores));
      resident_.push_back(load[i].resident);
    }
    leaves_ = 1;
    while (leaves_ < computers.size()) leaves_ *= 2;
    tree_.assign(2 * leaves_, kEmpty);
    for (std::size_t i = 0; i < computers.size(); ++i) tree_[leaves_ + i] = static_cast<std::uint32_t>(i);
    for (std::size_t node = leaves_ - 1; node >= 1; --node) tree_[node] = better(tree_[2 * node], tree_[2 * node + 1]);
  }

  std::vector<std::uint64_t> cores_, resident_;
  std::vector<std::uint32_t> tree_;  // tree_[1] is the least loaded computer; leaves from leaves_
  std::size_t leaves_ = 1;
};

// Largest processing capacity the new process would get: mips · min(1, cores / (computing + 1)).
class FastestFree final : public PlacementPolicy {
 public:
  std::size_t place(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load,
                    const PlacementRequest&, Rng&) override {
    return argmin(computers.size(), [&](std::size_t i) {
      double share = std::min(1.0, computers[i].cores / static_cast<double>(load[i].computing + 1));
      return -computers[i].mips * share;
    });
  }
};

// Smallest memory slowdown α after placing the process, then the largest capacity share; computers
// where the process would not fit in main plus virtual memory are avoided while any other fits.
class MemoryAware final : public PlacementPolicy {
 public:
  std::size_t place(const std::vector<Computer>& computers, const std::vector<ComputerLoad>& load,
                    const PlacementRequest& request, Rng&) override {
    return argmin(computers.size(), [&](std::size_t i) {
      const Computer& c = computers[i];
      double occupied = load[i].occupied_mb + request.memory_mb;
      double penalty = occupied > c.main_memory_mb + c.virtual_memory_mb ? 1e12 : 0;
      double share = std::min(1.0, c.cores / static_cast<double>(load[i].computing + 1));
      // Expected time per MI on that computer with the new process there.
      return penalty + (1 + c.alpha(occupied)) / (c.mips * share);
    });
  }
};

const bool kBuiltins = [] {
  register_placement("round_robin", "computers in turn, in profile order",
                     [](const nlohmann::json&) { return std::make_unique<RoundRobin>(); });
  register_placement("random", "a computer drawn uniformly from the seeded stream",
                     [](const nlohmann::json&) { return std::make_unique<Random>(); });
  register_placement("least_loaded", "fewest resident processes per core",
                     [](const nlohmann::json&) { return std::make_unique<LeastLoaded>(); });
  register_placement("fastest", "largest free processing capacity (MIPS-weighted share of a core)",
                     [](const nlohmann::json&) { return std::make_unique<FastestFree>(); });
  register_placement("memory_aware", "least time per MI including memory slowdown; avoids overfilling memory",
                     [](const nlohmann::json&) { return std::make_unique<MemoryAware>(); });
  return true;
}();

}  // namespace

bool register_placement(const std::string& name, const std::string& description, PlacementFactory factory) {
  registry()[name] = Entry{description, std::move(factory)};
  return true;
}

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, const nlohmann::json& options) {
  (void)kBuiltins;  // keeps the built-ins' registration linked in
  auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [n, e] : registry()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown placement policy '" + name + "' (known: " + known + ")");
  }
  return it->second.factory(options);
}

std::vector<std::pair<std::string, std::string>> placement_policies() {
  (void)kBuiltins;
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, e] : registry()) out.emplace_back(n, e.description);
  return out;
}

}  // namespace hetperf::sim
