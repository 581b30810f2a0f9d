// The coroutine frame pool (see task.hpp).
#include "hetperf/apps/task.hpp"

#include <array>
#include <new>

namespace hetperf::apps {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

constexpr std::size_t kGranule = 64;
constexpr std::size_t kClasses = 32;  // frames up to 32 × 64 = 2 KiB

// Whether this thread's pool is gone (a frame freed during the thread's teardown, after it).
thread_local bool pool_gone = false;

// Freed frames, one singly linked list per size class, threaded through the frames themselves. A
// thread's pool holds at most what its simulations had alive at once, and is freed when it ends.
struct Pool {
  struct Free {
    Free* next;
  };
  std::array<Free*, kClasses> lists{};
  ~Pool() {
    pool_gone = true;
    for (Free*& head : lists) {
      while (head) ::operator delete(std::exchange(head, head->next));
    }
  }
};

thread_local Pool pool;

std::size_t size_class(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* allocate_frame(std::size_t bytes) {
  const std::size_t c = size_class(bytes);
  if (!kPooled || c >= kClasses) return ::operator new(bytes);
  if (Pool::Free* f = pool.lists[c]) {
    pool.lists[c] = f->next;
    return f;
  }
  return ::operator new((c + 1) * kGranule);
}

void free_frame(void* frame, std::size_t bytes) noexcept {
  const std::size_t c = size_class(bytes);
  if (!kPooled || c >= kClasses || pool_gone) {
    ::operator delete(frame);
    return;
  }
  pool.lists[c] = new (frame) Pool::Free{pool.lists[c]};
}

}  // namespace hetperf::apps
