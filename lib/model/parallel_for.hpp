#pragma once
// Runs independent pieces of work on every core. A call made from inside another parallel_for
// (the planner's workers generating an automatic schedule) runs sequentially, so nested
// searches do not oversubscribe the machine.
#include <cstddef>
#include <functional>

namespace pipeplan {

/// Calls work(i) for every i in [0, count), spread over the cores; returns when all are done.
/// Each index runs once; results must go to per-index slots. An exception in one call is
/// rethrown (the first one) after all have finished.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& work);

/// How many threads parallel_for(count, ...) runs the work on: the worker indexes it passes are
/// below this.
[[nodiscard]] std::size_t parallel_workers(std::size_t count);

/// parallel_for whose work(i, worker) also learns which worker runs it, so each worker can keep
/// its own buffers in slot `worker` (parallel_workers(count) slots) instead of allocating per
/// index.
void parallel_for_with_worker(std::size_t count, const std::function<void(std::size_t, std::size_t)>& work);

/// Marks the current thread, while it lives, as one of a pool's workers: a parallel_for it calls
/// runs sequentially. For pools that are not parallel_for's (the planner's, which reports its
/// progress from the calling thread).
class ParallelWorker {
 public:
  ParallelWorker();
  ~ParallelWorker();
  ParallelWorker(const ParallelWorker&) = delete;
  ParallelWorker& operator=(const ParallelWorker&) = delete;

 private:
  bool was_inside_;
};

}  // namespace pipeplan
