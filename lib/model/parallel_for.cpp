#include "model/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pipeplan {

namespace {
thread_local bool inside_parallel_for = false;
}  // namespace

ParallelWorker::ParallelWorker() : was_inside_(inside_parallel_for) { inside_parallel_for = true; }
ParallelWorker::~ParallelWorker() { inside_parallel_for = was_inside_; }

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& work) {
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(count, cores);
  if (inside_parallel_for || threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const auto worker = [&] {
    const ParallelWorker marked;
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();  // the calling thread works too
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace pipeplan
