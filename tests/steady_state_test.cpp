// Several iterations back to back, with the optimizer step in sync or post-validation mode.
#include <doctest/doctest.h>

#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

namespace {

SimTime ns(double ms) { return ms_to_ns(ms); }

CostModel two_stage_costs() { return test::two_stage_costs({0, 0.5}, {0, 2.0}); }

}  // namespace

TEST_CASE("two iterations of 1F1B, sync: the barrier, each step, and the steady step by hand") {
  // Iteration 1 ends at 17 ms on both devices (simulator_test.cpp). The barrier is at 17; device
  // 0 steps 17-17.5, device 1 17-19. Iteration 2: d0 F0 17.5-18.5, F1 18.5-19.5; d1 F0 arrives
  // 19.0: 19-21, BW0 21-25, F1 25-27, BW1 27-31; d0 BW0 25.5-28.5, BW1 31.5-34.5. Barrier 34.5;
  // d0 steps until 35, d1 until 36.5. Each device's period: 35 - 17.5 = 36.5 - 19 = 17.5 ms.
  Schedule s = generated("1f1b", 2, 2);
  SimResult r = simulate(s, two_stage_costs(), {2, OptimizerMode::Sync});
  const auto& d0 = r.devices[0].iterations;
  const auto& d1 = r.devices[1].iterations;
  CHECK(d0[0].optimizer_start == ns(17));
  CHECK(d1[0].optimizer_end == ns(19));
  CHECK(d0[1].first_start == ns(17.5));
  CHECK(d1[1].first_start == ns(19));
  CHECK(d0[1].last_end == ns(34.5));
  CHECK(d1[1].optimizer_end == ns(36.5));
  CHECK(r.step_time() == ns(17.5));
  CHECK(r.makespan == ns(17));  // the first iteration's
  CHECK(test::all_ops(r).size() == 16);
  // One iteration alone: 17 + the slower step of 2 ms.
  CHECK(simulate(s, two_stage_costs(), {1, OptimizerMode::Sync}).step_time() == ns(19));
}

TEST_CASE("post-validation: each device steps as soon as its own ops are done") {
  // Iteration 1: d1's last op ends at 13.5, it steps 13.5-15.5 without waiting for d0 (17).
  Schedule s = generated("1f1b", 2, 2);
  SimResult r = simulate(s, two_stage_costs(), {2, OptimizerMode::PostValidation});
  CHECK(r.devices[1].iterations[0].optimizer_start == ns(13.5));
  CHECK(r.devices[1].iterations[0].optimizer_end == ns(15.5));
  CHECK(r.devices[0].iterations[0].optimizer_end == ns(17.5));
  // Device 1 still waits for device 0's forward (17.5 + 1 + 0.5 = 19), so the period stays 17.5.
  CHECK(r.devices[1].iterations[1].first_start == ns(19));
  CHECK(r.step_time() == ns(17.5));
}

TEST_CASE("post-validation steady state of ZB-H2 with uniform costs: M(F + B + W) plus the optimizer step") {
  // Every device of ZB-H2 is busy without a gap inside its span (simulator_test.cpp); with each
  // device starting its next iteration right after its own step, the staggered start is paid
  // once, and each iteration takes exactly one device's work plus its step (schedules.md).
  for (int p = 2; p <= 5; ++p) {
    for (int m = 2 * p - 1; m <= 3 * p; m += p) {
      CAPTURE(p);
      CAPTURE(m);
      Schedule s = generated("zbh2", p, m);
      CostModel c = test::uniform(s, 1, 1, 1);
      for (DeviceCost& d : c.devices) d.optimizer_ms = 0.5;
      SimResult r = simulate(s, c, {4, OptimizerMode::PostValidation});
      CHECK(r.step_time() == ns(3.0 * m + 0.5));
      // In sync mode the stagger comes back every iteration: makespan 3M + P - 1, plus the step.
      CHECK(simulate(s, c, {4, OptimizerMode::Sync}).step_time() == ns(3.0 * m + (p - 1) + 0.5));
    }
  }
}

TEST_CASE("ZB-H2 and ZB-V with uniform costs have no bubble on the span") {
  Schedule h = generated("zbh2", 4, 8), v = generated("zbv", 4, 8);
  CHECK(simulate(h, test::uniform(h, 1, 1, 1)).span_bubble_rate() == 0.0);
  CHECK(simulate(v, test::uniform(v, 1, 1, 1)).span_bubble_rate() == 0.0);
  // 1F1B's devices idle inside their spans: device 0 from its 3rd F to its first BW and more.
  Schedule o = generated("1f1b", 4, 8);
  CHECK(simulate(o, test::uniform(o, 1, 1, 1)).span_bubble_rate() > 0.0);
}

TEST_CASE("the span bubble is the last iteration's, by hand") {
  // 1F1B, P = 2, M = 1, F = B = W = 1 (BW = 2), post-validation, device 1's step 10 ms.
  // Iteration 0: d0 F 0-1; d1 F 1-2, BW 2-4; d0 BW 4-6. Spans 6 and 3, busy 3 each, longest 6:
  // (3 + 3) / (2 x 6) = 0.5. Iteration 1: d0 steps at 6 (0 ms), F 6-7; d1 steps 4-14, F 14-15,
  // BW 15-17; d0 BW 17-19. Spans 13 and 3: (10 + 10) / (2 x 13) = 10/13.
  Schedule s = generated("1f1b", 2, 1);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.devices[1].optimizer_ms = 10;
  SimResult one = simulate(s, c, {1, OptimizerMode::PostValidation});
  CHECK(one.span_bubble_rate() == doctest::Approx(0.5));
  SimResult two = simulate(s, c, {2, OptimizerMode::PostValidation});
  CHECK(two.devices[0].iterations[1].span() == ms_to_ns(13));
  CHECK(two.span_bubble_rate() == doctest::Approx(10.0 / 13.0));
}

TEST_CASE("memory returns to the static baseline after every iteration, and ops carry their iteration") {
  Schedule s = generated("zbh1", 3, 6);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1, 1000, 100), {3, OptimizerMode::PostValidation});
  std::vector<OpTiming> ops = test::all_ops(r);
  CHECK(ops.size() == 3 * s.op_count());
  int last_iteration = 0;
  for (const OpTiming& t : ops) last_iteration = std::max(last_iteration, t.iteration);
  CHECK(last_iteration == 2);
  for (const DeviceTimeline& d : r.devices) CHECK(d.memory.back().bytes == d.static_memory);
  // The peak is the same as one iteration's: activations never pile up across iterations.
  SimResult once = simulate(s, test::uniform(s, 1, 1, 1, 1000, 100));
  for (std::size_t d = 0; d < 3; ++d) CHECK(r.devices[d].peak_memory == once.devices[d].peak_memory);
}

TEST_CASE("iterations out of range are refused") {
  Schedule s = generated("1f1b", 2, 2);
  CHECK(test::error_of([&] { (void)simulate(s, test::uniform(s, 1, 1, 1), {0, OptimizerMode::Sync}); })
            .rfind("iterations: expected 1 or more", 0) == 0);
}
