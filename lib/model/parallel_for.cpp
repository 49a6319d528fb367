#include "model/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

#include "model/threads.hpp"

namespace pipeplan {

namespace {
thread_local bool inside_parallel_for = false;
}  // namespace

ParallelWorker::ParallelWorker() : was_inside_(inside_parallel_for) {
  inside_parallel_for = true;
}
ParallelWorker::~ParallelWorker() {
  inside_parallel_for = was_inside_;
}

std::size_t parallel_workers(std::size_t count) {
  if (inside_parallel_for) return 1;
  return std::max<std::size_t>(1, std::min(count, hardware_threads()));
}

void parallel_for_with_worker(std::size_t count, const std::function<void(std::size_t, std::size_t)>& work) {
  const std::size_t threads = parallel_workers(count);
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i, 0);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const auto worker = [&](std::size_t w) {
    const ParallelWorker marked;
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i, w);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  {
    ThreadGroup pool;
    for (std::size_t t = 1; t < threads; ++t) pool.start([&worker, t] { worker(t); });
    worker(0);  // the calling thread works too
  }
  if (first_error) std::rethrow_exception(first_error);
}

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& work) {
  parallel_for_with_worker(count, [&](std::size_t i, std::size_t) { work(i); });
}

}  // namespace pipeplan
