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

}  // namespace pipeplan
