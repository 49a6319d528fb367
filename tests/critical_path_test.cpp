// The critical path (lib/sim/critical_path.cpp), by hand on small runs, then its invariants over
// every generator.
#include <doctest/doctest.h>

#include <string>

#include "schedules/generator.hpp"
#include "sim/critical_path.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// "d0 F(s0,m0)" per step, "*" before a step that waited for a transfer.
std::string steps(const std::vector<CriticalStep>& path) {
  std::string out;
  for (const CriticalStep& s : path) {
    out += (out.empty() ? "" : " ") + std::string(s.after_transfer ? "*" : "") + "d" + std::to_string(s.op->device) +
           " " + describe(s.op->op);
  }
  return out;
}

}  // namespace

TEST_CASE("GPipe, P = 2, M = 2: the path runs down the pipeline and back up") {
  // F = B = W = 1 ms (BW 2), no transfer time. By hand: device 0 runs F0 0-1, F1 1-2, BW0 5-7,
  // BW1 7-9; device 1 F0 1-2, F1 2-3, BW0 3-5, BW1 5-7. Back from device 0's BW1 (ends 9):
  // BW0 ended at its start; device 0's BW0 (start 5) waited for device 1's BW0 (ends 5), which
  // followed F1 and F0 on device 1; device 1's F0 (start 1) waited for device 0's F0.
  const Schedule s = test::generated("gpipe", 2, 2);
  const SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  const auto path = critical_path(s, r);
  CHECK(steps(path) == "d0 F(s0,m0) *d1 F(s1,m0) d1 F(s1,m1) d1 BW(s1,m0) *d0 BW(s0,m0) d0 BW(s0,m1)");
  CHECK(path.front().op->start == 0);
  CHECK(path.back().op->end == r.makespan);
  // Each transfer names the input it carried, by its producer's stage: stage 0's activation of
  // micro-batch 0, then stage 1's input gradient of micro-batch 0.
  REQUIRE(path.size() == 6);
  CHECK(path[1].input.need == Need::Forward);
  CHECK(path[1].input.stage == 0);
  CHECK(path[1].input.microbatch == 0);
  CHECK(path[4].input.need == Need::InputGradient);
  CHECK(path[4].input.stage == 1);
  CHECK(path[4].input.microbatch == 0);
}

TEST_CASE("an input's transfer, not a device's earlier op that ended later, is what an op waited for") {
  // GPipe, P = 2, M = 2; stage 0 F = 1, stage 1 F = 0.8, B = W = 1 on both; transfer 0.5 ms.
  // Device 1 runs F0 1.5-2.3, then F1 waits for device 0's F1 (ends 2) plus 0.5: 2.5-3.3. Its
  // own F0 ended later (2.3) than that input (2), yet F1 waited for the input: picking the
  // latest end would be wrong. Then BW0 3.3-5.3, BW1 5.3-7.3 on device 1; device 0's BW0 waits
  // for 5.3 + 0.5: 5.8-7.8; BW1 7.8-9.8 (its gradient arrives at 7.8 too; the device wins the tie).
  const Schedule s = test::generated("gpipe", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.stages[1].f_ms = 0.8;
  c.transfer.fixed_ms = 0.5;
  const SimResult r = simulate(s, c);
  CHECK(r.makespan == ms_to_ns(9.8));
  const auto path = critical_path(s, r);
  CHECK(steps(path) == "d0 F(s0,m0) d0 F(s0,m1) *d1 F(s1,m1) d1 BW(s1,m0) *d0 BW(s0,m0) d0 BW(s0,m1)");
  // Durations 1 + 1 + 0.8 + 2 + 2 + 2 = 8.8 ms, plus two transfers of 0.5: the makespan.
  SimTime sum = 0;
  for (const CriticalStep& step : path)
    sum += step.op->end - step.op->start + (step.after_transfer ? ms_to_ns(0.5) : 0);
  CHECK(sum == r.makespan);
}

TEST_CASE("every generator's path is tight from 0 to the makespan, in the first iteration") {
  // Under the overlapped simulator an op starts when its device's previous op ends or when its
  // last input arrives (end + transfer), so each step starts exactly there. Two iterations: the
  // path stays in the first, whose makespan it explains.
  const SimTime transfer = ms_to_ns(0.1);
  for (const Generator& g : generators()) {
    CAPTURE(g.name);
    if (g.memory_limit == MemoryLimitUse::Required) continue;  // zb: zb-1p and zb-2p run its search
    const Schedule s = test::generated(std::string(g.name), 4, 8);
    CostModel c = test::uniform(s, 1, 1.2, 0.8);
    c.transfer.fixed_ms = 0.1;
    const SimResult r = simulate(s, c, SimOptions{2, OptimizerMode::Sync, true});
    const auto path = critical_path(s, r);
    REQUIRE(!path.empty());
    CHECK(path.front().op->start == 0);
    CHECK(!path.front().after_transfer);
    CHECK(path.back().op->end == r.makespan);
    for (std::size_t i = 1; i < path.size(); ++i) {
      const OpTiming& before = *path[i - 1].op;
      const OpTiming& op = *path[i].op;
      CAPTURE(describe(op.op));
      CHECK(op.iteration == 0);
      CHECK((op.device != before.device) == path[i].after_transfer);
      CHECK(op.start == before.end + (path[i].after_transfer ? transfer : 0));
    }
  }
}

TEST_CASE("a run without a recorded timeline has no path") {
  const Schedule s = test::generated("1f1b", 2, 2);
  const SimResult r = simulate(s, test::uniform(s, 1, 1, 1), SimOptions{1, OptimizerMode::Sync, false});
  CHECK(critical_path(s, r).empty());
}
