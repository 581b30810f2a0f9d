// Task: a minimal lazy C++20 coroutine returning void, so an application can be written once and
// run by a real back-end (where every operation completes immediately and nothing suspends) or by a
// simulated back-end (where operations suspend until the simulator resumes them).
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <utility>

namespace hetperf::apps {

// Coroutine frames come from a per-thread pool of freed frames of the same size class: a simulated
// LU creates and ends a frame for every panel send, solve and update (millions at n = 131072), and
// malloc and free were a sixth of its time. Frames over 2 KiB, and every frame in a sanitized build
// (so AddressSanitizer still sees each one), go to the global allocator.
void* allocate_frame(std::size_t bytes);
void free_frame(void* frame, std::size_t bytes) noexcept;

class Task {
 public:
  struct promise_type {
    std::coroutine_handle<> continuation;
    std::exception_ptr error;
    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct FinalAwaiter {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        auto next = h.promise().continuation;
        return next ? next : std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    FinalAwaiter final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { error = std::current_exception(); }
    static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
    static void operator delete(void* frame, std::size_t bytes) noexcept { free_frame(frame, bytes); }
  };

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  // Awaiting a task runs it; the awaiting coroutine continues when it finishes.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  void await_resume() const {
    if (handle_.promise().error) std::rethrow_exception(handle_.promise().error);
  }

  // Starts (or continues) a top-level task; `done()` says whether it ran to its end.
  void resume() { handle_.resume(); }
  bool done() const { return handle_.done(); }
  // Rethrows an exception that ended the task.
  void rethrow_if_failed() const {
    if (handle_.promise().error) std::rethrow_exception(handle_.promise().error);
  }

 private:
  explicit Task(std::coroutine_handle<promise_type> h) : handle_(h) {}
  std::coroutine_handle<promise_type> handle_;
};

}  // namespace hetperf::apps
