#include "model/threads.hpp"

#include <algorithm>

#include "model/error.hpp"

namespace pipeplan {

std::size_t hardware_threads() {
  if (!threads_available()) return 1;
  return std::max(1U, std::thread::hardware_concurrency());
}

ThreadGroup::~ThreadGroup() {
  join();
}

void ThreadGroup::start(std::function<void()> work) {
  if (!threads_available()) throw Error("this build of pipeplan cannot start threads (WebAssembly without pthreads)");
  threads_.emplace_back(std::move(work));
}

void ThreadGroup::join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

}  // namespace pipeplan
