#include <doctest/doctest.h>

#include <random>

#include "sim/lower_bound.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("the lower bound of the two-stage scenario, by hand") {
  // Stage 0: F=1 B=2 W=1 on device 0 (step 0.5); stage 1: F=2 B=3 W=1 on device 1 (step 2);
  // transfer 0.5; M = 2. Work: d0 2*(1+2+1) = 8, d1 2*(2+3+1) = 12.
  // Post-validation: max(8 + 0.5, 12 + 2) = 14. Sync: d1 cannot start before its step (2) nor
  // before stage 0's step and F0 + transfer (0.5 + 1.5): 2 + 12 = 14; the round trip is
  // 0.5 + (1 + 0.5 + 2) + (3 + 0.5 + 2) + 1 = 10.5. Both 14, below the simulated 17.5.
  Schedule s = test::generated("1f1b", 2, 2);
  const CostModel c = test::two_stage_costs({0, 0.5}, {0, 2.0});  // activation bytes play no part
  CHECK(step_lower_bound(s, c, OptimizerMode::PostValidation) == ms_to_ns(14));
  CHECK(step_lower_bound(s, c, OptimizerMode::Sync) == ms_to_ns(14));
  // With one micro-batch the round trip dominates the sync bound: 0.5 + 3.5 + 5.5 + 1 = 10.5
  // against the work of d1, 2 + 6 = 8.
  Schedule one = test::generated("1f1b", 2, 1);
  CHECK(step_lower_bound(one, c, OptimizerMode::Sync) == ms_to_ns(10.5));
}

TEST_CASE("the lower bound never exceeds a simulated step time (random costs, every generator)") {
  std::mt19937 random(20261130);
  std::uniform_real_distribution<double> time(0.05, 3.0), step(0.0, 2.0), link(0.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int p = 1 + trial % 5;
    const int m = 2 * p + trial % 4;
    for (const Generator& g : generators()) {
      Schedule s;
      try {
        s = g.generate(test::request(p, m, g.chunks_for(0)));
      } catch (const std::exception&) {
        continue;  // this generator's rule excludes this P, M
      }
      CostModel c = test::uniform(s, 1, 1, 1);
      for (StageCost& st : c.stages) st = StageCost{time(random), time(random), time(random), 0, 0};
      for (DeviceCost& d : c.devices) d.optimizer_ms = step(random);
      c.transfer.fixed_ms = link(random);
      for (OptimizerMode mode : {OptimizerMode::Sync, OptimizerMode::PostValidation}) {
        for (int k : {1, 3}) {
          CAPTURE(g.name);
          CAPTURE(p);
          CAPTURE(m);
          CAPTURE(k);
          SimResult r = simulate(s, c, {k, mode});
          CHECK(r.lower_bound <= r.step_time());
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1000);
}
