// A computer's disk as one FIFO server (UniMPP paper eq. 4-5): an access of bsize bytes takes bsize / dr
// (reads) or bsize / dw (writes) once it reaches the head of the queue; the time spent queued before is
// the waiting time wtdr / wtdw of the equations.
#pragma once

#include <cstdint>
#include <utility>

#include "hetperf/simulator/engine/engine.hpp"
#include "hetperf/simulator/engine/fifo_queue.hpp"

namespace hetperf::sim {

class DiskListener {
 public:
  virtual void served(std::uint32_t token) = 0;

 protected:
  ~DiskListener() = default;
};

class FifoDisk final : public Handler {
 public:
  FifoDisk(Engine& engine, DiskListener& listener) : engine_(engine), listener_(listener) {}
  FifoDisk(const FifoDisk&) = delete;
  FifoDisk& operator=(const FifoDisk&) = delete;

  // Queues an access that takes `service` once served; `served(token)` follows its end.
  void submit(Duration service, std::uint32_t token);
  bool busy() const { return busy_; }
  std::size_t queued() const { return queue_.size(); }

  void fire(std::uint64_t key) override;

 private:
  void serve_next();

  Engine& engine_;
  DiskListener& listener_;
  FifoQueue<std::pair<Duration, std::uint32_t>> queue_;
  bool busy_ = false;
  std::uint32_t serving_ = 0;
};

}  // namespace hetperf::sim
