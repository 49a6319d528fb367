#include <doctest/doctest.h>

#include "model/wait_cycle.hpp"

using namespace pipeplan;

TEST_CASE("wait_cycle finds the cycle wherever it is, and only its devices") {
  using Graph = std::vector<std::vector<int>>;
  CHECK(wait_cycle(Graph{}).empty());
  CHECK(wait_cycle(Graph{{}, {0}, {1}}).empty());  // a chain that ends: no cycle
  CHECK(wait_cycle(Graph{{0}, {1}}).empty());      // waiting on oneself is no cycle
  CHECK(wait_cycle(Graph{{1}, {0}}) == std::vector<int>{0, 1, 0});
  // Device 0 waits on itself and is first; devices 1 and 2 wait on each other.
  CHECK(wait_cycle(Graph{{0}, {2}, {1}}) == std::vector<int>{1, 2, 1});
  // Devices 0 and 3 only wait on the cycle 1 -> 2 -> 1: they are not part of it.
  CHECK(wait_cycle(Graph{{1}, {2}, {1}, {2}}) == std::vector<int>{1, 2, 1});
  // Entered at 3, the cycle still starts at its smallest device.
  CHECK(wait_cycle(Graph{{3}, {2}, {3}, {1}}) == std::vector<int>{1, 2, 3, 1});
  // A device's second wait closes the cycle when the first leads nowhere.
  CHECK(wait_cycle(Graph{{}, {0, 2}, {1}}) == std::vector<int>{1, 2, 1});
}
