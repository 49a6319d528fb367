// The allocator behind the simulation's per-op arrays: large arrays come from huge-page chunks,
// small ones from operator new; either way a vector must behave as with std::allocator.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "model/large_allocator.hpp"

using namespace pipeplan;

namespace {

// Fills a vector with its indexes and checks they are all still there.
bool holds_indexes(const LargeVector<std::int64_t>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != static_cast<std::int64_t>(i)) return false;
  }
  return true;
}

LargeVector<std::int64_t> indexes(std::size_t n) {
  LargeVector<std::int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace

TEST_CASE("large vectors keep their contents through growth, copies and moves") {
  // Sizes on both sides of the threshold, and one past a 64 MiB chunk.
  for (std::size_t n : {std::size_t{10}, large_memory::kThreshold / 8 - 1, large_memory::kThreshold / 8,
                        std::size_t{1} << 20, (std::size_t{72} << 20) / 8}) {
    CAPTURE(n);
    LargeVector<std::int64_t> v = indexes(n);
    CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % 64 == 0);
    CHECK(holds_indexes(v));
    LargeVector<std::int64_t> copy = v;
    v.push_back(static_cast<std::int64_t>(n));  // grows: a new array, the old one given back
    CHECK(v.size() == n + 1);
    CHECK(holds_indexes(copy));
    LargeVector<std::int64_t> moved = std::move(copy);
    CHECK(holds_indexes(moved));
  }
}

TEST_CASE("arrays given back are reused, and live ones are never handed out twice") {
  // Many arrays alive at once across several chunks, freed in a mixed order and made again:
  // each must keep its own contents.
  std::vector<LargeVector<std::int64_t>> alive;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40; ++i) alive.push_back(indexes((std::size_t{1} << 20) + static_cast<std::size_t>(i)));
    for (std::size_t i = 0; i < alive.size(); i += 2) alive[i] = LargeVector<std::int64_t>();
    for (const auto& v : alive) {
      if (!v.empty()) CHECK(holds_indexes(v));
    }
    std::erase_if(alive, [](const auto& v) { return v.empty(); });
  }
  for (const auto& v : alive) CHECK(holds_indexes(v));
}

TEST_CASE("large arrays can be made and given back from several threads at once") {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (std::size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([&failures, t] {
      for (int i = 0; i < 30; ++i) {
        LargeVector<std::int64_t> a = indexes((std::size_t{1} << 17) * (t + 1));
        LargeVector<std::int64_t> b = indexes(std::size_t{1} << 16);
        if (!holds_indexes(a) || !holds_indexes(b)) ++failures[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int f : failures) CHECK(f == 0);
}

TEST_CASE("the large array given back last is reused at once, so scratch arrays do not pile up") {
  // A simulation's result arrays stay while its scratch arrays (made after them) die: the next
  // simulation's arrays must take the scratch arrays' place, not fresh memory.
  LargeVector<std::int64_t> result = indexes(std::size_t{1} << 18);
  const std::int64_t* scratch_at = nullptr;
  {
    LargeVector<std::int64_t> scratch = indexes(std::size_t{1} << 18);
    scratch_at = scratch.data();
  }
  LargeVector<std::int64_t> next = indexes(std::size_t{1} << 18);
  CHECK(next.data() == scratch_at);
  CHECK(holds_indexes(result));
  CHECK(holds_indexes(next));
}
