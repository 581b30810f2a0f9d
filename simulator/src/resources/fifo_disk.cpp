// The FIFO disk (see fifo_disk.hpp).
#include "hetperf/simulator/resources/fifo_disk.hpp"

#include <algorithm>

namespace hetperf::sim {

void FifoDisk::submit(Duration service, std::uint32_t token) {
  queue_.push_back({Duration(std::max(0.0, service.s())), token});
  if (!busy_) serve_next();
}

void FifoDisk::serve_next() {
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  auto [service, token] = queue_.front();
  queue_.pop_front();
  busy_ = true;
  serving_ = token;
  engine_.after(service, *this);
}

void FifoDisk::fire(std::uint64_t) {
  const std::uint32_t done = serving_;
  serve_next();
  listener_.served(done);
}

}  // namespace hetperf::sim
