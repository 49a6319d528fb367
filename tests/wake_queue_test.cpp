// The greedy pass's wake-up queue, against the obvious linear scan.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "schedules/wake_queue.hpp"

using namespace pipeplan;

namespace {

// The earliest (time, device) by scanning every device: what WakeQueue must always agree with.
std::pair<SimTime, int> scan(const std::vector<SimTime>& wake) {
  std::pair<SimTime, int> best{WakeQueue::kNever, 0};
  for (std::size_t d = 0; d < wake.size(); ++d) {
    if (wake[d] < best.first) best = {wake[d], static_cast<int>(d)};
  }
  return best;
}

}  // namespace

TEST_CASE("the wake queue starts with every device at time 0, the lowest index first") {
  for (int devices : {1, 2, 3, 5, 8, 64}) {
    WakeQueue q(devices);
    CHECK(q.device() == 0);
    CHECK(q.time() == 0);
    q.set(0, 10);
    CHECK(q.device() == (devices > 1 ? 1 : 0));
    CHECK(q.time() == (devices > 1 ? 0 : 10));
  }
}

TEST_CASE("the wake queue always gives the earliest device, ties to the lowest index, as a scan does") {
  std::mt19937 rng(11);
  for (int devices : {1, 2, 3, 7, 16, 33}) {
    CAPTURE(devices);
    WakeQueue q(devices);
    std::vector<SimTime> wake(static_cast<std::size_t>(devices), 0);
    for (int step = 0; step < 2000; ++step) {
      const int d = static_cast<int>(rng() % static_cast<unsigned>(devices));
      // Few distinct times, so ties are common; now and then a device with nothing to wait for.
      const SimTime when = rng() % 9 == 0 ? WakeQueue::kNever : static_cast<SimTime>(rng() % 6);
      q.set(d, when);
      wake[static_cast<std::size_t>(d)] = when;
      const auto [time, device] = scan(wake);
      REQUIRE(q.time() == time);
      if (time != WakeQueue::kNever) REQUIRE(q.device() == device);
      REQUIRE(q.time_of(d) == when);
    }
  }
}
