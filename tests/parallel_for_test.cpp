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

TEST_CASE("parallel_for_with_worker gives each worker its own slot, never two at a time") {
  const std::size_t count = 500;
  const std::size_t workers = parallel_workers(count);
  REQUIRE(workers >= 1);
  std::vector<std::atomic<int>> busy(workers);
  std::vector<std::atomic<int>> runs(count);
  std::atomic<int> shared_slot{0};
  std::atomic<int> out_of_range{0};
  parallel_for_with_worker(count, [&](std::size_t i, std::size_t worker) {
    if (worker >= workers) {
      ++out_of_range;
      return;
    }
    if (busy[worker].fetch_add(1) != 0) ++shared_slot;
    ++runs[i];
    std::this_thread::yield();
    --busy[worker];
  });
  CHECK(out_of_range.load() == 0);
  CHECK(shared_slot.load() == 0);
  for (const auto& r : runs) CHECK(r.load() == 1);
  CHECK(parallel_workers(0) == 1);
  std::thread inside([&] {
    const ParallelWorker marked;
    CHECK(parallel_workers(count) == 1);
  });
  inside.join();
}
