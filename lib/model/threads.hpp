#pragma once
// The library's threads in one place: a group that joins its threads when it goes (what a vector
// of std::jthread did), and how many cores a pool may use. Emscripten's libc++ (Debian's
// emscripten 3.1.6, libc++ 13) has no std::jthread, and the page built without -pthread
// (scripts/build-web.sh) cannot start a thread at all: there threads_available() is false,
// hardware_threads() is 1, and every pool runs its work on the calling thread instead.
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace pipeplan {

/// False where no thread can be started (WebAssembly built without pthreads).
[[nodiscard]] constexpr bool threads_available() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return false;
#else
  return true;
#endif
}

/// The threads a pool may run at once: the cores, at least 1; 1 where threads_available() is false.
[[nodiscard]] std::size_t hardware_threads();

/// Threads that are all joined by join() or when the group is destroyed, so an exception leaving
/// the scope that started them never leaves one running.
class ThreadGroup {
 public:
  ThreadGroup() = default;
  ~ThreadGroup();
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  /// Runs `work` on a new thread. Throws Error where threads_available() is false: a caller with
  /// a one-thread path takes it before asking.
  void start(std::function<void()> work);

  /// Waits for every thread started so far.
  void join();

 private:
  std::vector<std::thread> threads_;
};

}  // namespace pipeplan
