// A transfer time per stage boundary (CostModel::boundaries, issue 14): every simulator, the lower
// bound, the critical path and the timed lowering time each transfer by the boundary it crosses.
// Each expected number is derived by hand in the comment above it.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "lower/lowering.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/critical_path.hpp"
#include "sim/lower_bound.hpp"
#include "sim/simulator.hpp"
#include "sim/transfer_rule.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// F = 1, B = W = 1 (a fused BW takes 2) on every stage; `transfer` is set far off so that a
// simulator that read it instead of the boundaries would show.
CostModel with_boundaries(const Schedule& s, std::vector<double> boundary_ms) {
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 100;
  for (double ms : boundary_ms) c.boundaries.push_back(TransferCost{ms, 0, 0, 0});
  return c;
}

double makespan_ms(const Schedule& s, const CostModel& c) {
  const SimResult r = simulate(s, c);
  REQUIRE_FALSE(r.deadlocked());
  return ns_to_ms(r.makespan);
}

}  // namespace

TEST_CASE("two devices, one micro-batch: the step crosses the one boundary there and back") {
  // Stage 0 F=1 B=2 W=1, stage 1 F=2 B=3 W=1 (two_stage_costs), boundary 0 = 0.75, `transfer`
  // 0.5 ignored. 1F1B runs F0 [0,1], F1 [1.75,3.75], BW1 [3.75,7.75], BW0 [8.5,11.5]:
  // F0 + t + F1 + (B1 + W1) + t + (B0 + W0) = 1 + 0.75 + 2 + 4 + 0.75 + 3 = 11.5.
  const Schedule s = test::generated("1f1b", 2, 1);
  CostModel c = test::two_stage_costs();
  c.boundaries = {TransferCost{0.75, 0, 0, 0}};
  CHECK(makespan_ms(s, c) == 11.5);
  // ZB-H1 splits the backward: F0 + t + F1 + B1 + t + B0 + W0 = 1 + 0.75 + 2 + 3 + 0.75 + 2 + 1
  // = 10.5 (W1 [6.75,7.75] runs while the gradient crosses).
  CHECK(makespan_ms(test::generated("zbh1", 2, 1), c) == 10.5);
  // A boundary given as latency + bytes / bandwidth: 0.25 ms + 5e6 B / 10 GB/s = 0.25 + 0.5 ms.
  c.boundaries = {TransferCost{std::nullopt, 0.25, 10.0, 5'000'000}};
  CHECK(makespan_ms(s, c) == 11.5);
}

TEST_CASE("1F1B on 4 stages: one slow boundary against all slow and all fast, by hand") {
  // F = 1, BW = 2; fast 0.1 ms, slow 2 ms. One micro-batch: 4 F and 4 BW in a chain, crossing
  // each boundary once each way: 4 x 1 + 4 x 2 + 2 x (t0 + t1 + t2).
  const Schedule one = test::generated("1f1b", 4, 1);
  CHECK(makespan_ms(one, with_boundaries(one, {0.1, 0.1, 0.1})) == doctest::Approx(12.6));  // 12 + 2 x 0.3
  CHECK(makespan_ms(one, with_boundaries(one, {0.1, 2, 0.1})) == doctest::Approx(16.4));    // 12 + 2 x 2.2
  CHECK(makespan_ms(one, with_boundaries(one, {2, 2, 2})) == doctest::Approx(24));          // 12 + 2 x 6
  // Two micro-batches. Devices 0 and 1 run F0 F1 BW0 BW1, device 2 F0 F1 BW0 BW1, device 3
  // F0 BW0 F1 BW1. Only boundary 1 slow (0.1, 2, 0.1):
  //   d0 F0 [0,1] F1 [1,2]; d1 F0 [1.1,2.1] F1 [2.1,3.1]; d2 F0 [4.1,5.1] F1 [5.1,6.1];
  //   d3 F0 [5.2,6.2] BW0 [6.2,8.2] F1 [8.2,9.2] BW1 [9.2,11.2];
  //   d2 BW0 [8.3,10.3] BW1 [11.3,13.3]; d1 BW0 [12.3,14.3] BW1 [15.3,17.3];
  //   d0 BW0 [14.4,16.4] BW1 [17.4,19.4]: 19.4.
  const Schedule two = test::generated("1f1b", 4, 2);
  CHECK(makespan_ms(two, with_boundaries(two, {0.1, 2, 0.1})) == doctest::Approx(19.4));
  // All fast: d2 F0 [2.2,3.2] F1 [3.2,4.2]; d3 F0 [3.3,4.3] BW0 [4.3,6.3] F1 [6.3,7.3] BW1
  // [7.3,9.3]; d2 BW0 [6.4,8.4] BW1 [9.4,11.4]; d1 [8.5,10.5] [11.5,13.5]; d0 [10.6,12.6]
  // [13.6,15.6]: 15.6.
  CHECK(makespan_ms(two, with_boundaries(two, {0.1, 0.1, 0.1})) == doctest::Approx(15.6));
  // All slow: d1 F [3,4] [4,5]; d2 [6,7] [7,8]; d3 F0 [9,10] BW0 [10,12] F1 [12,13] BW1 [13,15];
  // d2 BW [14,16] [17,19]; d1 [18,20] [21,23]; d0 [22,24] [25,27]: 27.
  CHECK(makespan_ms(two, with_boundaries(two, {2, 2, 2})) == doctest::Approx(27));
  // Without boundaries every transfer takes `transfer` again: 2 ms is the all-slow case.
  CostModel uniform = test::uniform(two, 1, 1, 1);
  uniform.transfer.fixed_ms = 2;
  CHECK(makespan_ms(two, uniform) == doctest::Approx(27));
}

TEST_CASE("the lower bound follows each boundary's own transfer along the chain") {
  // Three stages on three devices, F = B = W = 1, M = 1, boundaries 0.5 and 4. Sync round trip:
  // forward chain 1 + 0.5 + 1 + 4 + 1 = 7.5, backward chain the same; 7.5 + 7.5 - B0 + BW0 = 16.
  // Device 2's first input comes at 1 + 0.5 + 1 + 4 = 6.5, plus its work 3: 9.5. Bound 16.
  // 1F1B: F0 [0,1] F1 [1.5,2.5] F2 [6.5,7.5] BW2 [7.5,9.5] BW1 [13.5,15.5] BW0 [16,18]: 18, the
  // round trip plus the W of stages 1 and 2, which the bound leaves out.
  const Schedule s = test::generated("1f1b", 3, 1);
  const CostModel c = with_boundaries(s, {0.5, 4});
  CHECK(step_lower_bound(s, c, OptimizerMode::Sync) == ms_to_ns(16));
  CHECK(makespan_ms(s, c) == 18);
  // Post-validation: only the busiest device's work, 3.
  CHECK(step_lower_bound(s, c, OptimizerMode::PostValidation) == ms_to_ns(3));
  // The longest transfer on every boundary would give 1 + 4 + 1 + 4 + 1 = 11 each way, 11 + 11 -
  // 1 + 2 = 23 > 18: no longer a lower bound. The slow boundary once each way is.
  CostModel longest = c;
  longest.boundaries = {TransferCost{4, 0, 0, 0}, TransferCost{4, 0, 0, 0}};
  CHECK(step_lower_bound(s, longest, OptimizerMode::Sync) == ms_to_ns(23));
}

TEST_CASE("the lower bound stays below the step with random per-boundary transfers (every generator)") {
  std::mt19937 random(14);
  std::uniform_real_distribution<double> time(0.05, 3.0), link(0.0, 2.0);
  int checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int p = 2 + trial % 4;
    for (const char* name : {"gpipe", "1f1b", "zbh1", "zbh2", "interleaved", "zbv", "dualpipev"}) {
      CAPTURE(name);
      CAPTURE(p);
      const Generator& g = *find_generator(name);
      GenerateRequest request = test::request(p, 2 * p, g.chunks_for(0));
      const Schedule s = g.generate(request);
      CostModel c = test::uniform(s, 1, 1, 1);
      for (StageCost& st : c.stages) st = StageCost{time(random), time(random), time(random), 0, 0};
      for (int b = 0; b + 1 < s.stages; ++b) c.boundaries.push_back(TransferCost{link(random), 0, 0, 0});
      c.boundaries[static_cast<std::size_t>(random() % c.boundaries.size())].fixed_ms = 10;  // one slow link
      for (OptimizerMode mode : {OptimizerMode::Sync, OptimizerMode::PostValidation}) {
        const SimResult r = simulate(s, c, {2, mode});
        CHECK(r.lower_bound <= r.step_time());
        ++checked;
      }
    }
  }
  CHECK(checked == 12 * 7 * 2);
}

TEST_CASE("the critical path takes the input that arrived last, not the one that ended last") {
  // Four stages on three devices, placement 0, 1, 1, 2; stage 0's F takes 20 ms, every other op
  // F = B = W = 1 (BW 2, the FB 1 + 2). Boundaries: 0 is 0.1 ms, 2 is 10 ms (1 joins stages on
  // one device). Device 1 runs F(s1,m0) F(s2,m0), then FB = F(s1,m1) with BW(s2,m0), which waits
  // for F(s0,m1) from device 0 (ends 40, arrives 40.1) and for BW(s3,m0) from device 2:
  //   d0 F(0,0) [0,20] F(0,1) [20,40]; d1 F(1,0) [20.1,21.1] F(2,0) [21.1,22.1];
  //   d2 F(3,0) [32.1,33.1] BW(3,0) [33.1,35.1], whose gradient arrives at 45.1.
  // So FB runs [45.1,48.1] after BW(3,0), which ended first but arrived last; then F(2,1)
  // [48.1,49.1], d2 F(3,1) [59.1,60.1] BW(3,1) [60.1,62.1], d1 BW(2,1) [72.1,74.1] BW(1,0)
  // [74.1,76.1] BW(1,1) [76.1,78.1], d0 BW(0,0) [76.2,78.2] BW(0,1) [78.2,80.2]: 80.2, the sum
  // of the path's ops and transfers.
  Schedule s{"fb", 3, 4, 2, {0, 1, 1, 2}, {}};
  s.order = {{{OpKind::F, 0, 0}, {OpKind::F, 0, 1}, {OpKind::BW, 0, 0}, {OpKind::BW, 0, 1}},
             {{OpKind::F, 1, 0},
              {OpKind::F, 2, 0},
              overlapped(1, 1, 2, 0),
              {OpKind::F, 2, 1},
              {OpKind::BW, 2, 1},
              {OpKind::BW, 1, 0},
              {OpKind::BW, 1, 1}},
             {{OpKind::F, 3, 0}, {OpKind::BW, 3, 0}, {OpKind::F, 3, 1}, {OpKind::BW, 3, 1}}};
  CostModel c = with_boundaries(s, {0.1, 0, 10});
  c.stages[0].f_ms = 20;
  const SimResult r = simulate(s, c);
  REQUIRE_FALSE(r.deadlocked());
  CHECK(ns_to_ms(r.makespan) == doctest::Approx(80.2));
  std::string path;
  int transfers = 0;
  for (const CriticalStep& step : critical_path(s, r)) {
    path += (path.empty() ? "" : " ") + describe(step.op->op);
    transfers += step.after_transfer ? 1 : 0;
  }
  CHECK(path ==
        "F(s0,m0) F(s1,m0) F(s2,m0) F(s3,m0) BW(s3,m0) FB(s1,m1 & s2,m0) F(s2,m1) F(s3,m1) BW(s3,m1) BW(s2,m1) "
        "BW(s1,m0) BW(s0,m0) BW(s0,m1)");
  CHECK(transfers == 6);  // 0.1 + 10 + 10 + 10 + 10 + 0.1 = 40.2 of the 80.2
}

TEST_CASE("the rendezvous simulator times each transfer by its boundary") {
  // Three stages, one micro-batch, F = 1, BW = 2, boundaries 0.5 and 3. The timed lowering posts
  // each receive early; nothing else shares a link, so every transfer starts when its data is
  // made: F0 [0,1], SEND_F(s0) [1,1.5], F1 [1.5,2.5], SEND_F(s1) [2.5,5.5], F2 [5.5,6.5], BW2
  // [6.5,8.5], SEND_B(s2) [8.5,11.5], BW1 [11.5,13.5], SEND_B(s1) [13.5,14], BW0 [14,16]: 16,
  // as overlapped.
  const Schedule s = test::generated("1f1b", 3, 1);
  const CostModel c = with_boundaries(s, {0.5, 3});
  const CommSimResult r = simulate_with_comm(lower(s, LowerPolicy::Timed, &c), c, CommMode::Rendezvous);
  REQUIRE(r.stuck.empty());
  CHECK(ns_to_ms(r.result.makespan) == 16);
  REQUIRE(r.transfers.size() == 4);
  std::vector<std::string> seen;
  for (const TransferTiming& t : r.transfers) {
    seen.push_back(describe(t.send) + " " + std::to_string(ns_to_ms(t.start)) + "-" + std::to_string(ns_to_ms(t.end)));
  }
  CHECK(seen == std::vector<std::string>{"SEND_F(s0,m0) 1.000000-1.500000", "SEND_F(s1,m0) 2.500000-5.500000",
                                         "SEND_B(s2,m0) 8.500000-11.500000", "SEND_B(s1,m0) 13.500000-14.000000"});
}

TEST_CASE("a slow boundary's link runs its transfers one at a time, each the boundary's time") {
  // 1F1B, P = 2, M = 2, F = 1, BW = 2, boundary 0 = 5 ms (`transfer` 0: were it read, every
  // transfer would take nothing). Timed lowering, rendezvous. Device 0 posts SEND_F(m0) after
  // F0, then SEND_F(m1) with RECV_B(m0), then RECV_B(m1); device 1 RECV_F(m0), F0, RECV_F(m1),
  // BW0, SEND_B(m0), F1, BW1, SEND_B(m1) (the lowering test below). Link 0 -> 1: F(m0) [1,6],
  // F(m1) waits for it: [6,11]. Device 1 F0 [6,7] BW0 [7,9]; its comm stream sends B(m0) after
  // RECV_F(m1) ends: [11,16]; F1 [11,12] BW1 [12,14], B(m1) [16,21]. Device 0 BW0 [16,18], BW1
  // [21,23]: 23 (overlapped, where transfers of a link overlap: 19).
  const Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 0;
  c.boundaries = {TransferCost{5, 0, 0, 0}};
  CHECK(makespan_ms(s, c) == 19);
  const CommSimResult r = simulate_with_comm(lower(s, LowerPolicy::Timed, &c), c, CommMode::Rendezvous);
  REQUIRE(r.stuck.empty());
  CHECK(ns_to_ms(r.result.makespan) == 23);
  REQUIRE(r.transfers.size() == 4);
  const std::vector<double> starts = {1, 6, 11, 16};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(ns_to_ms(r.transfers[i].start) == starts[i]);
    CHECK(ns_to_ms(r.transfers[i].end - r.transfers[i].start) == 5);
  }
}

TEST_CASE("the timed lowering places a receive where its boundary's transfer lands") {
  // The case above, overlapped: device 1 runs F0 [6,7] BW0 [7,9] F1 [9,10] BW1 [10,12].
  // RECV_F(s1,m1)'s data is made at 2 and lands at 2 + 5 = 7, after F0: it goes into the gap
  // before BW0. With `transfer` (0) it would land at 2, before any op ended, and be batched with
  // RECV_F(s1,m0). SEND_B(s1,m0) follows BW0 (data at 9); SEND_B(s1,m1) BW1.
  const Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 0;
  c.boundaries = {TransferCost{5, 0, 0, 0}};
  const LoweredSchedule l = lower(s, LowerPolicy::Timed, &c);
  CHECK(test::lowered_listing(l, 1) ==
        "RECV_F(s1,m0) F(s1,m0) RECV_F(s1,m1) BW(s1,m0) SEND_B(s1,m0) F(s1,m1) BW(s1,m1) SEND_B(s1,m1)");
  // Device 0: BW0's gradient lands at 9 + 5 = 14, after F1 (ends 2): RECV_B(s0,m0) is batched
  // with SEND_F(s0,m1) before BW0; BW1's lands at 12 + 5 = 17, after BW0 (ends 16).
  CHECK(test::lowered_listing(l, 0) ==
        "F(s0,m0) SEND_F(s0,m0) F(s0,m1) SEND_F(s0,m1) +RECV_B(s0,m0) BW(s0,m0) RECV_B(s0,m1) BW(s0,m1)");
  CHECK(lowering_problems(l).empty());
}

TEST_CASE("boundary_transfer_ns converts each boundary once, and refuses a wrong count") {
  const Schedule s = test::generated("1f1b", 3, 1);
  CostModel c = with_boundaries(s, {0.5, 3});
  CHECK(boundary_transfer_ns(c) == std::vector<SimTime>{ms_to_ns(0.5), ms_to_ns(3)});
  CHECK(c.max_transfer_ms() == 3);
  c.boundaries.clear();  // every boundary takes `transfer`
  CHECK(boundary_transfer_ns(c) == std::vector<SimTime>{ms_to_ns(100), ms_to_ns(100)});
  c.boundaries = {TransferCost{1, 0, 0, 0}};
  CHECK(test::error_of([&] { (void)boundary_transfer_ns(c); }) ==
        "boundaries: expected one transfer per stage boundary (2 for 3 stages), got 1");
  CHECK(test::error_of([&] { (void)simulate(s, c); }) ==
        "boundaries: expected one transfer per stage boundary (2 for 3 stages), got 1");
}

TEST_CASE("the transfer rule: at once on the same device, else after its boundary's crossing") {
  // Boundaries of 0.5 ms and 3 ms (three stages); an output that ends at 10 ms.
  const Schedule s = test::generated("1f1b", 3, 1);
  const TransferRule rule(with_boundaries(s, {0.5, 3}));
  const SimTime end = ms_to_ns(10);
  CHECK(rule.arrival(end, 1, 1, 0) == end);                  // same device: no transfer
  CHECK(rule.arrival(end, 0, 1, 0) == end + ms_to_ns(0.5));  // boundary 0
  CHECK(rule.arrival(end, 2, 1, 1) == end + ms_to_ns(3));    // boundary 1, a gradient coming back
  CHECK(rule.delay(0, 2, 1) == ms_to_ns(3));
  CHECK(rule.delay(2, 2, 1) == 0);
  CHECK(rule.longest() == ms_to_ns(3));
  CHECK(TransferRule(std::vector<SimTime>{}).longest() == 0);  // one stage: no boundary
}
