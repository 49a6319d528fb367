#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "model/error.hpp"
#include "model/parallel_for.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("parallel_for runs every index once and rethrows the first failure") {
  std::vector<std::atomic<int>> runs(1000);
  parallel_for(runs.size(), [&](std::size_t i) { ++runs[i]; });
  for (const auto& r : runs) CHECK(r.load() == 1);
  CHECK(test::error_of([] {
          parallel_for(50, [](std::size_t i) {
            if (i == 7) throw Error("index 7 failed");
          });
        }) == "index 7 failed");
  parallel_for(0, [](std::size_t) { FAIL("no index to run"); });
}

TEST_CASE("a parallel_for inside a pool's worker runs on that worker alone") {
  std::atomic<int> other_threads{0};
  std::thread worker([&] {
    const ParallelWorker marked;
    const auto me = std::this_thread::get_id();
    parallel_for(64, [&](std::size_t) {
      if (std::this_thread::get_id() != me) ++other_threads;
    });
  });
  worker.join();
  CHECK(other_threads.load() == 0);
}
