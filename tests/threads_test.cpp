#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "model/threads.hpp"

using namespace pipeplan;

// The native build has threads; the page's one-thread path (threads_available() false) is
// checked in the browser, tests/web/playground.test.js, where the planner runs on one thread.
TEST_CASE("a thread group runs each task on a thread of its own and joins them all (the planner's pool)") {
  CHECK(threads_available());
  CHECK(hardware_threads() >= 1);
  CHECK(hardware_threads() == std::max(1U, std::thread::hardware_concurrency()));
  const std::size_t tasks = 8;
  std::vector<std::thread::id> ran_on(tasks);
  std::atomic<int> finished{0};
  {
    ThreadGroup group;
    for (std::size_t i = 0; i < tasks; ++i) {
      group.start([&, i] {
        ran_on[i] = std::this_thread::get_id();
        ++finished;
      });
    }
  }  // the group's end joins: every task has finished here
  CHECK(finished.load() == int(tasks));
  for (std::size_t i = 0; i < tasks; ++i) CHECK(ran_on[i] != std::this_thread::get_id());
  ThreadGroup reused;
  reused.start([&] { ++finished; });
  reused.join();
  CHECK(finished.load() == int(tasks) + 1);
  reused.join();  // nothing left to join: a second join waits for nothing
}
