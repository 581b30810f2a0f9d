// The cost of touching pages a process left untouched for a while (cpu_probe.hpp probe_page_retouch).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <numeric>

#include "hetperf/model/distribution.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/host.hpp"
#include "hetperf/model/statistics.hpp"
#include "hetperf/probes/cgroup.hpp"
#include "hetperf/probes/cleanup.hpp"
#include "hetperf/probes/cpu_probe.hpp"

namespace hetperf::probes {
namespace {

constexpr std::size_t kPage = 4096;
using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One byte written in each page at `offset`, with `volatile` so that no pass is elided.
void touch_pages(volatile unsigned char* buffer, std::uint64_t pages, std::size_t offset) {
  for (std::uint64_t p = 0; p < pages; ++p) {
    volatile unsigned char& byte = buffer[p * kPage + offset];
    byte = static_cast<unsigned char>(byte + 1);
  }
}

// Every page written, a spin of `gap_s` (the process stays on its core, as a rank polling in MPI
// does), then the timed pass.
double touch_after(volatile unsigned char* buffer, std::uint64_t pages, double gap_s) {
  touch_pages(buffer, pages, 64);
  const auto rest = Clock::now();
  while (seconds_between(rest, Clock::now()) < gap_s) {
  }
  const auto start = Clock::now();
  touch_pages(buffer, pages, 128);
  return seconds_between(start, Clock::now());
}

// A buffer of `pages` pages, aligned to a page, written once.
std::unique_ptr<unsigned char, decltype(&std::free)> page_buffer(std::uint64_t pages) {
  std::unique_ptr<unsigned char, decltype(&std::free)> memory(
      static_cast<unsigned char*>(std::aligned_alloc(kPage, pages * kPage)), &std::free);
  if (!memory) throw EnvironmentError("page re-touch probe: cannot allocate its buffer");
  volatile unsigned char* buffer = memory.get();
  for (std::uint64_t i = 0; i < pages * kPage; ++i) buffer[i] = 0;
  return memory;
}

}  // namespace

std::optional<PageRetouchMeasurement> probe_page_retouch(const PageRetouchOptions& o) {
  if (o.rounds < 1 || o.pages < 1 || o.cap_pages < 1 || o.gaps_s.size() < 2 || o.gaps_s.front() != 0)
    throw InputError("page re-touch probe: at least one round, one page, and gaps from 0");
  // Not measured where the buffers would take more than half of what this process may still use
  // (MemAvailable, its memory cgroup's headroom): a probe never meets the OOM killer.
  std::optional<std::uint64_t> available = available_memory_bytes();
  if (const auto headroom = memory_headroom_of_this_process())
    available = available ? std::min(*available, *headroom) : *headroom;
  if (available && static_cast<double>((o.pages + o.cap_pages) * kPage) > 0.5 * static_cast<double>(*available))
    return std::nullopt;
  const auto small = page_buffer(o.pages), large = page_buffer(o.cap_pages);
  const std::size_t gaps = o.gaps_s.size();
  PageRetouchMeasurement m;
  m.pages = o.pages;
  m.cap_pages = o.cap_pages;
  m.gaps_s = o.gaps_s;
  m.samples_s.assign(gaps, {});
  m.cap_samples_s.assign(gaps, {});
  touch_after(small.get(), o.pages, o.gaps_s.back());  // warm-up, discarded
  Rng rng(o.seed);
  std::vector<std::size_t> order(2 * gaps);  // i < gaps: the small buffer after gap i; else the large
  for (int round = 0; round < o.rounds; ++round) {
    if (interrupted()) return std::nullopt;
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.index(i)]);
    for (std::size_t k : order) {
      if (k < gaps)
        m.samples_s[k].push_back(touch_after(small.get(), o.pages, o.gaps_s[k]));
      else
        m.cap_samples_s[k - gaps].push_back(touch_after(large.get(), o.cap_pages, o.gaps_s[k - gaps]));
    }
  }
  m.rounds = o.rounds;
  for (const auto& s : m.samples_s) m.touch_s.push_back(median(s));
  for (const auto& s : m.cap_samples_s) m.cap_touch_s.push_back(median(s));
  return m;
}

}  // namespace hetperf::probes
