// Several iterations back to back, with the optimizer step in sync or post-validation mode.
#include <doctest/doctest.h>

#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

namespace {

SimTime ns(double ms) {
  return ms_to_ns(ms);
}

CostModel two_stage_costs() {
  return test::two_stage_costs({0, 0.5}, {0, 2.0});
}

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

TEST_CASE("many iterations keep the numbers of a run that stored every iteration's output ends") {
  // The simulator keeps the output ends of three iterations and reuses them (simulator.cpp).
  // Interleaved 1F1B, P = 3, V = 2 (stage s on device s mod 3, so the wrap from device 2 to
  // device 0 crosses the ring too), M = 6, unequal stage costs, a transfer of 0.25 ms and
  // optimizer steps of 0.5, 3 and 1.25 ms, so that in post-validation the devices drift apart.
  // The figures are what pipeplan gave at 21ca594, before the ring, when the ends of every
  // iteration were stored (`simulate --json` of the same schedule and profile): the makespan
  // 63.5 ms, and from the second iteration on a steady period, so that device 1's last step
  // ends at 66.5 + (K - 1) x 65.25 ms (sync) and 64.25 + (K - 1) x 64 ms (post-validation).
  Schedule s = generated("interleaved", 3, 6);
  REQUIRE(s.stages == 6);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.stages = {{1.0, 1.5, 0.5},  {1.25, 2.0, 0.75}, {0.75, 1.0, 0.5},
              {1.0, 1.25, 1.0}, {1.5, 1.75, 0.25}, {2.0, 2.5, 1.5}};
  c.devices[0].optimizer_ms = 0.5;
  c.devices[1].optimizer_ms = 3.0;
  c.devices[2].optimizer_ms = 1.25;
  c.transfer.fixed_ms = 0.25;
  struct Expected {
    OptimizerMode mode;
    double first_step, period, step_one, step_many, span_bubble_many;
  };
  for (const Expected& e : {Expected{OptimizerMode::Sync, 66.5, 65.25, 66.5, 65.25, 0.3204633204633205},
                            Expected{OptimizerMode::PostValidation, 64.25, 64.0, 64.25, 64.0, 0.30708661417322836}}) {
    for (int k : {1, 2, 3, 4, 8, 20}) {
      CAPTURE(k);
      CAPTURE(optimizer_mode_name(e.mode));
      for (bool record : {true, false}) {  // the summary's run records no op timings
        SimOptions options{k, e.mode};
        options.record_timeline = record;
        const SimResult r = simulate(s, c, options);
        CHECK(r.makespan == ns(63.5));
        CHECK(r.step_time() == ns(k == 1 ? e.step_one : e.step_many));
        CHECK(r.devices[1].iterations.back().optimizer_end == ns(e.first_step + (k - 1) * e.period));
        // The span bubble of one iteration, 0.30708661417322836, is post-validation's for every K.
        CHECK(r.span_bubble_rate() == (k == 1 ? 0.30708661417322836 : e.span_bubble_many));
      }
    }
  }
}

TEST_CASE("iterations out of range are refused") {
  Schedule s = generated("1f1b", 2, 2);
  CHECK(test::error_of([&] {
          (void)simulate(s, test::uniform(s, 1, 1, 1), {0, OptimizerMode::Sync});
        }).rfind("iterations: expected 1 or more", 0) == 0);
}
