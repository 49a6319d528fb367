// The limits a run is checked against before it is timed (issue 31, item 3): iterations x ops,
// and every time summed within 64-bit nanoseconds (sim/run_limits.hpp).
#include <doctest/doctest.h>

#include "lower/lowering.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/run_limits.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// GPipe on one device: M forwards of 0 ms, then M fused backwards of B + W = 0 + 1e10 ms (the
// cap of one time, 1e16 ns). Nothing waits on anything else, so the makespan is M x 1e16 ns, and
// the bound (every op one after another, no transfers on one device, no optimizer) is the same.
Schedule one_device_gpipe(int microbatches) {
  return test::generated("gpipe", 1, microbatches);
}
CostModel longest_backwards(const Schedule& s) {
  return test::uniform(s, 0, 0, kMaxMs);
}

}  // namespace

TEST_CASE("a run just under 2^62 ns is timed exactly, one op more is refused, in both simulators") {
  // 2^62 = 4,611,686,018,427,387,904 ns lies between 461 x 1e16 and 462 x 1e16.
  const Schedule under = one_device_gpipe(461);
  const CostModel costs = longest_backwards(under);
  CHECK(run_length_bound_ns(under, costs, 1) == SimTime{461} * SimTime{10'000'000'000'000'000});
  CHECK_FALSE(run_limit_problem(under, costs, {}).has_value());
  const SimResult r = simulate(under, costs);
  CHECK(r.makespan == SimTime{461} * SimTime{10'000'000'000'000'000});
  CHECK(r.step_time() == r.makespan);
  CHECK(r.bubble_rate() == 0.0);

  const Schedule over = one_device_gpipe(462);
  const std::optional<RunLimitProblem> p = run_limit_problem(over, costs, {});
  REQUIRE(p.has_value());
  CHECK(p->limit == RunLimit::Length);
  CHECK(p->message.find("4.62e+12 ms") != std::string::npos);
  CHECK_THROWS_AS((void)simulate(over, costs), RunLimitError);
  // The timed lowering simulates the run first, so it refuses it too; a lowering that does not
  // is refused by the simulator with posts.
  CHECK_THROWS_AS((void)lower(over, LowerPolicy::Timed, &costs), RunLimitError);
  const LoweredSchedule lowered = lower(over, LowerPolicy::JustBefore);
  CHECK_THROWS_AS((void)simulate_with_comm(lowered, costs, CommMode::Blocking), RunLimitError);
}

TEST_CASE("iterations multiply the bound, and each transfer and optimizer step adds to it") {
  // 1F1B, P = 2, M = 2, F = B = W = 1 ms, transfer 0.5 ms, optimizer 2 ms per device. Each
  // device runs two Fs and two fused BWs (1 + 1 + 2 + 2 = 6 ms), 12 ms in all; the inputs that
  // cross devices are F(s1,m0), F(s1,m1) on device 1 and the gradients of BW(s0,m0), BW(s0,m1)
  // on device 0, 4 x 0.5 = 2 ms; the optimizer steps 2 x 2 = 4 ms. One iteration 18 ms; three 54.
  const Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 0.5;
  for (DeviceCost& d : c.devices) d.optimizer_ms = 2;
  CHECK(run_length_bound_ns(s, c, 1) == ms_to_ns(18));
  CHECK(run_length_bound_ns(s, c, 3) == ms_to_ns(54));
  // The bound holds the run: its makespan is 10 ms (comm_simulator_test.cpp times this 1F1B by
  // hand), under 18.
  CHECK(simulate(s, c).makespan == ms_to_ns(10));
}

TEST_CASE("too many iterations are refused by name, with the schedule's op count") {
  const Schedule s = test::generated("1f1b", 2, 2);  // 8 ops
  const std::optional<RunLimitProblem> p = run_limit_problem(s, test::uniform(s, 1, 1, 1), {25'000'001});
  REQUIRE(p.has_value());
  CHECK(p->limit == RunLimit::Iterations);
  CHECK(p->message ==
        "iterations: expected 1 or more, with iterations x ops at most 200000000 (the schedule has 8 "
        "ops), got 25000001");
  // 25,000,000 x 8 = 200,000,000: at the limit, allowed.
  CHECK_FALSE(run_limit_problem(s, test::uniform(s, 1, 1, 1), {25'000'000}).has_value());
}

TEST_CASE("memory up to 2^62 bytes a device is counted exactly, a byte more is refused") {
  // GPipe on one device holds every activation at once after its forwards: M x a_F. Two of 2^61
  // bytes are 2^62 exactly, the most allowed; one byte more each is refused before the run, where
  // four of them once wrapped around and showed a peak of two.
  const Schedule s = test::generated("gpipe", 1, 2);
  const Bytes half = Bytes{1} << 61;
  const CostModel at_cap = test::uniform(s, 1, 1, 1, half, 0);
  CHECK(memory_bound_bytes(s, at_cap, 0) == kMaxRunBytes);
  CHECK(simulate(s, at_cap).devices[0].peak_memory == kMaxRunBytes);
  const CostModel over = test::uniform(s, 1, 1, 1, half + 1, 0);
  const std::optional<RunLimitProblem> p = run_limit_problem(s, over, {});
  REQUIRE(p.has_value());
  CHECK(p->limit == RunLimit::Memory);
  CHECK(p->message.rfind("device 0 could hold up to 4.612e+18 bytes", 0) == 0);
  CHECK_THROWS_AS((void)simulate(s, over), RunLimitError);
}
