#include <doctest/doctest.h>

#include "lower/lowering.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("each policy places the sends and receives of 1F1B as its runtime does") {
  // 1F1B, P = 2, M = 2: device 0 runs F0 F1 BW0 BW1, device 1 F0 BW0 F1 BW1.
  const Schedule s = test::generated("1f1b", 2, 2);
  const LoweredSchedule just = lower(s, LowerPolicy::JustBefore);
  CHECK(test::lowered_listing(just, 0) ==
        "F(s0,m0) SEND_F(s0,m0) F(s0,m1) SEND_F(s0,m1) RECV_B(s0,m0) BW(s0,m0) RECV_B(s0,m1) BW(s0,m1)");
  CHECK(test::lowered_listing(just, 1) ==
        "RECV_F(s1,m0) F(s1,m0) BW(s1,m0) SEND_B(s1,m0) RECV_F(s1,m1) F(s1,m1) BW(s1,m1) SEND_B(s1,m1)");
  // Batched: the gap's send and receive go together (Megatron's send_forward_recv_backward).
  CHECK(test::lowered_listing(lower(s, LowerPolicy::Batched), 1) ==
        "RECV_F(s1,m0) F(s1,m0) BW(s1,m0) SEND_B(s1,m0) +RECV_F(s1,m1) F(s1,m1) BW(s1,m1) SEND_B(s1,m1)");
  // Megatron: even ranks send to the next first, odd ranks receive from the previous first.
  CHECK(test::lowered_listing(lower(s, LowerPolicy::Megatron), 1) ==
        "RECV_F(s1,m0) F(s1,m0) BW(s1,m0) RECV_F(s1,m1) SEND_B(s1,m0) F(s1,m1) BW(s1,m1) SEND_B(s1,m1)");
  // Early: each receive one compute op ahead, before the sends of the op in between.
  CHECK(test::lowered_listing(lower(s, LowerPolicy::Early), 0) ==
        "F(s0,m0) SEND_F(s0,m0) RECV_B(s0,m0) F(s0,m1) SEND_F(s0,m1) RECV_B(s0,m1) BW(s0,m0) BW(s0,m1)");
  CHECK(test::lowered_listing(lower(s, LowerPolicy::Early), 1) ==
        "RECV_F(s1,m0) F(s1,m0) RECV_F(s1,m1) BW(s1,m0) SEND_B(s1,m0) F(s1,m1) BW(s1,m1) SEND_B(s1,m1)");
  for (LowerPolicy p : all_policies()) {
    CHECK(lowering_problems(lower(s, p)).empty());
    CHECK(parse_policy(policy_name(p)) == p);
  }
}

TEST_CASE("early receives move ahead of the compute op before their consumer") {
  // ZB-H1, P = 2, M = 2: device 1 runs F0 B0 F1 B1 W0 W1; RECV_F(s1,m1), which F1 needs,
  // is posted before B0.
  const LoweredSchedule early = lower(test::generated("zbh1", 2, 2), LowerPolicy::Early);
  CHECK(
      test::lowered_listing(early, 1) ==
      "RECV_F(s1,m0) F(s1,m0) RECV_F(s1,m1) B(s1,m0) SEND_B(s1,m0) F(s1,m1) B(s1,m1) SEND_B(s1,m1) W(s1,m0) W(s1,m1)");
  CHECK(lowering_problems(early).empty());
}

TEST_CASE("a lowering that cannot run names every problem") {
  const Schedule s = test::generated("1f1b", 2, 2);
  LoweredSchedule l = lower(s, LowerPolicy::JustBefore);
  // Device 1 receives its micro-batches in the wrong order: NCCL would pair m0's send with m1's receive.
  std::swap(l.actions[1][0], l.actions[1][4]);
  std::vector<Problem> problems = lowering_problems(l);
  REQUIRE(!problems.empty());
  bool mispaired = false;
  for (const Problem& p : problems) {
    if (p.kind == ProblemKind::Unmatched) {
      CHECK(p.message ==
            "device 0's send #1 to device 1 is SEND_F(s0,m0) but device 1's receive #1 from it is RECV_F(s1,m1): "
            "posted in different orders, they would pair the wrong tensors");
      mispaired = true;
    }
  }
  CHECK(mispaired);
  // A receive dropped: its consumer has nothing to wait for, and the send has no partner.
  l = lower(s, LowerPolicy::JustBefore);
  l.actions[1].erase(l.actions[1].begin());
  problems = lowering_problems(l);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].message == "F(s1,m0) on device 1 needs RECV_F(s1,m0) posted before it");
  CHECK(problems[1].message == "SEND_F(s0,m0) on device 0 has no matching RECV_F(s1,m0) on device 1");
  // A send before the op that produces it.
  l = lower(s, LowerPolicy::JustBefore);
  std::swap(l.actions[0][0], l.actions[0][1]);
  problems = lowering_problems(l);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].kind == ProblemKind::Misordered);
}
