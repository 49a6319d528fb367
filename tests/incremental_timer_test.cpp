// The incremental timer against the simulator, which times every op from scratch and shares no
// code with it but the op durations and the transfer rule: after random moves on random
// schedules (loop, V and random placements, split and fused backwards, FB pairs, transfers),
// every op's start and end, the sum of the ends and whether it deadlocks are the simulator's.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "random_schedule.hpp"
#include "sim/incremental_timer.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

CostModel random_costs(std::mt19937& random, const Schedule& s) {
  std::uniform_real_distribution<double> time(0.1, 2.0);
  CostModel c = test::uniform(s, 1, 1, 1);
  for (StageCost& st : c.stages) st = StageCost{time(random), time(random), time(random), 0, 0};
  // Some runs with no transfer: then an input from another device arrives as it ends.
  c.transfer.fixed_ms = random() % 3 == 0 ? 0.0 : time(random) / 4;
  return c;
}

// CHECKs that the timer holds the simulator's times of `s`, or that both say it deadlocks.
void check_against_simulator(const IncrementalTimer& timer, bool timed, const Schedule& s, const CostModel& c) {
  SimOptions options;
  SimWorkspace workspace;
  const SimResult r = simulate_trusted(s, c, options, workspace);
  REQUIRE(timed == !r.deadlocked());
  if (!timed) return;
  SimTime ends = 0;
  for (std::size_t d = 0; d < s.order.size(); ++d) {
    REQUIRE(timer.ops(d) == r.devices[d].ops.size());
    for (std::size_t i = 0; i < timer.ops(d); ++i) {
      CAPTURE(d);
      CAPTURE(i);
      REQUIRE(r.devices[d].ops[i].op == s.order[d][i]);
      CHECK(timer.start(d, i) == r.devices[d].ops[i].start);
      CHECK(timer.end(d, i) == r.devices[d].ops[i].end);
      ends += r.devices[d].ops[i].end;
    }
  }
  CHECK(timer.sum_of_ends() == ends);
}

// Moves device d's op at `from` to `to` in the schedule, as the timer does.
void move_op(Schedule& s, std::size_t d, std::size_t from, std::size_t to) {
  auto& ops = s.order[d];
  const auto at = [&](std::size_t k) { return ops.begin() + static_cast<std::ptrdiff_t>(k); };
  if (from < to) {
    std::rotate(at(from), at(from + 1), at(to + 1));
  } else {
    std::rotate(at(to), at(from), at(from + 1));
  }
}

}  // namespace

TEST_CASE("after random moves the incremental timer gives every op the simulator's times") {
  std::mt19937 random(26);
  int kept = 0, deadlocks = 0, timed = 0;
  for (int round = 0; round < 60; ++round) {
    const int p = 2 + static_cast<int>(random() % 5);
    const int v = 1 + static_cast<int>(random() % 2);
    const int m = 1 + static_cast<int>(random() % 8);
    CAPTURE(round);
    Schedule s = test::random_schedule(random, p, v, m);
    const CostModel c = random_costs(random, s);
    REQUIRE(IncrementalTimer::applies(s, c));
    IncrementalTimer timer(s, c);
    REQUIRE_FALSE(timer.deadlocked());
    check_against_simulator(timer, true, s, c);
    for (int trial = 0; trial < 40; ++trial) {
      CAPTURE(trial);
      // One to three moves, each within a few places (as the search's) or anywhere; on one
      // device or several.
      Schedule moved = s;
      const int moves = 1 + static_cast<int>(random() % 3);
      for (int k = 0; k < moves; ++k) {
        const std::size_t d = random() % s.order.size();
        const std::size_t n = moved.order[d].size();
        if (n < 2) continue;
        const std::size_t from = random() % n;
        std::size_t to = random() % 2 == 0 ? random() % n : std::min(n - 1, from + random() % 3);
        if (to == from) to = from == 0 ? 1 : from - 1;
        move_op(moved, d, from, to);
        timer.move(d, from, to);
      }
      const bool ok = timer.retime();
      check_against_simulator(timer, ok, moved, c);
      ++(ok ? timed : deadlocks);
      if (ok && random() % 3 == 0) {
        timer.keep();
        s = std::move(moved);
        ++kept;
      } else {
        timer.drop();
      }
      // Kept or dropped, the timer holds the times of the schedule it now stands for.
      check_against_simulator(timer, true, s, c);
    }
  }
  // The draws cover both outcomes and walks of several kept moves (626 timed, 1774 deadlocks,
  // 229 kept with seed 26).
  CHECK(timed > 500);
  CHECK(deadlocks > 300);
  CHECK(kept > 150);
}

TEST_CASE("a move that makes a device wait on a later op of its own is a deadlock, as the simulator says") {
  // Two devices, ZB-H1's order; device 1's first B moved before its first F: B(s1,m0) needs
  // F(s1,m0), which now comes after it.
  Schedule s = test::generated("zbh1", 2, 2);
  const CostModel c = test::uniform(s, 1, 1, 1);
  IncrementalTimer timer(s, c);
  const std::size_t b = static_cast<std::size_t>(std::find(s.order[1].begin(), s.order[1].end(), Op{OpKind::B, 1, 0}) -
                                                 s.order[1].begin());
  timer.move(1, b, 0);
  CHECK_FALSE(timer.retime());
  timer.drop();
  check_against_simulator(timer, true, s, c);
}

TEST_CASE("swapping the last two weight gradients of a device re-times those two ops alone") {
  // ZB-H1 on 2 devices with 3 micro-batches ends device 1 with W(s1,m1), W(s1,m2), back to back
  // (nothing waits for a W). The swap links back in time once: the search for a cycle sees the
  // op it starts from, W(s1,m1) now last, which leads nowhere (1 op); then both are queued and
  // timed (2 x 2): 5 of work, and W(s1,m2) starts where W(s1,m1) did, 1 ms (one W) earlier.
  Schedule s = test::generated("zbh1", 2, 3);
  const CostModel c = test::uniform(s, 1, 1, 1);
  const std::size_t n = s.order[1].size();
  REQUIRE(s.order[1][n - 2] == Op{OpKind::W, 1, 1});
  REQUIRE(s.order[1][n - 1] == Op{OpKind::W, 1, 2});
  IncrementalTimer timer(s, c);
  const SimTime before = timer.start(1, n - 1);
  const long long work = timer.work();
  timer.move(1, n - 1, n - 2);
  REQUIRE(timer.retime());
  CHECK(timer.work() - work == 5);
  CHECK(timer.start(1, n - 2) == before - ms_to_ns(1));
  CHECK(timer.end(1, n - 1) == before + ms_to_ns(1));
}

TEST_CASE("the incremental timer does not apply to a schedule with a zero-time op") {
  Schedule s = test::generated("zbh1", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  CHECK(IncrementalTimer::applies(s, c));
  c.stages[1].w_ms = 0;
  CHECK_FALSE(IncrementalTimer::applies(s, c));
}
