#include <doctest/doctest.h>

#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

TEST_CASE("a generated schedule is valid, with or without a generous memory limit") {
  Schedule s = generated("zbh1", 4, 8);
  CHECK(validate(s, test::uniform(s, 1, 1, 1, 100, 10), {}).empty());
  CHECK(validate(s, test::uniform(s, 1, 1, 1, 100, 10), {Bytes{400}}).empty());
}

TEST_CASE("a cross-device deadlock names each blocked device and the cycle") {
  Schedule s = generated("1f1b", 2, 2);
  s.order[0] = {{OpKind::F, 0, 0}, {OpKind::BW, 0, 0}, {OpKind::F, 0, 1}, {OpKind::BW, 0, 1}};
  s.order[1] = {{OpKind::F, 1, 1}, {OpKind::BW, 1, 1}, {OpKind::F, 1, 0}, {OpKind::BW, 1, 0}};
  auto p = validate(s, test::uniform(s, 1, 1, 1), {});
  REQUIRE(p.size() == 3);
  CHECK(p[0].kind == ProblemKind::Deadlock);
  CHECK(p[0].message ==
        "deadlock: device 0 is stuck at order[0][1] BW(s0,m0), waiting for B or BW(s1,m0) from device 1 "
        "(itself stuck at order[1][0] F(s1,m1))");
  CHECK(p[1].message ==
        "deadlock: device 1 is stuck at order[1][0] F(s1,m1), waiting for F(s0,m1) from device 0 "
        "(itself stuck at order[0][1] BW(s0,m0))");
  CHECK(p[2].message == "deadlock: devices wait in a cycle: device 0 -> device 1 -> device 0");
}

TEST_CASE("the cycle is named when the first blocked device is not on it (issue 20)") {
  // P = 3, M = 2. Device 2 wants micro-batch 1 first; device 1 runs F(s1,m0), then waits at
  // BW(s1,m0) for device 2's gradient: devices 1 and 2 wait on each other.
  Schedule s = generated("1f1b", 3, 2);
  s.order[1] = {{OpKind::F, 1, 0}, {OpKind::BW, 1, 0}, {OpKind::F, 1, 1}, {OpKind::BW, 1, 1}};
  s.order[2] = {{OpKind::F, 2, 1}, {OpKind::BW, 2, 1}, {OpKind::F, 2, 0}, {OpKind::BW, 2, 0}};
  SUBCASE("device 0 waits on itself") {
    // Split backward on device 0 with W(s0,m0) before its B: it runs both forwards and stops.
    s.order[0] = {{OpKind::F, 0, 0}, {OpKind::F, 0, 1}, {OpKind::W, 0, 0},
                  {OpKind::B, 0, 0}, {OpKind::B, 0, 1}, {OpKind::W, 0, 1}};
    auto p = validate(s, test::uniform(s, 1, 1, 1), {});
    REQUIRE(!p.empty());
    CHECK(p.back().message == "deadlock: devices wait in a cycle: device 1 -> device 2 -> device 1");
  }
  SUBCASE("device 0 waits on the cycle without being on it") {
    // Device 0 runs its two forwards, then waits at BW(s0,m0) for device 1.
    s.order[0] = {{OpKind::F, 0, 0}, {OpKind::F, 0, 1}, {OpKind::BW, 0, 0}, {OpKind::BW, 0, 1}};
    auto p = validate(s, test::uniform(s, 1, 1, 1), {});
    REQUIRE(p.size() == 4);  // three blocked devices and the cycle
    CHECK(p[0].message ==
          "deadlock: device 0 is stuck at order[0][2] BW(s0,m0), waiting for B or BW(s1,m0) from device 1 "
          "(itself stuck at order[1][1] BW(s1,m0))");
    CHECK(p[3].message == "deadlock: devices wait in a cycle: device 1 -> device 2 -> device 1");
  }
}

TEST_CASE("a misordered op is reported, and so is the deadlock it causes") {
  Schedule s = generated("zbh1", 1, 2);     // F0 B0 W0 F1 B1 W1
  std::swap(s.order[0][1], s.order[0][2]);  // W0 before B0
  auto p = validate(s, test::uniform(s, 1, 1, 1), {});
  REQUIRE(p.size() == 2);
  CHECK(p[0].kind == ProblemKind::Misordered);
  CHECK(p[1].kind == ProblemKind::Deadlock);
  CHECK(p[1].message == "deadlock: device 0 is stuck at order[0][1] W(s0,m0), waiting for B(s0,m0) from device 0");
}

TEST_CASE("memory above the limit names the device, when and by how much") {
  // GPipe, P = 2, M = 4, a_F = 1 KiB: each device holds 4 KiB after its last forward. Device 0
  // ends its forwards at 4 ms; the limit of 3 KiB is first passed when the 4th forward starts
  // at 3 ms. Device 1 starts a forward at 1, 2, 3, 4 ms and passes the limit at 4 ms.
  Schedule s = generated("gpipe", 2, 4);
  auto p = validate(s, test::uniform(s, 1, 1, 1, 1024, 0), {Bytes{3 * 1024}});
  REQUIRE(p.size() == 2);
  CHECK(p[0].kind == ProblemKind::OverMemory);
  CHECK(p[0].device == 0);
  CHECK(p[0].message ==
        "device 0 goes above the memory limit of 3.00 KiB at 3.000 ms; its peak of 4.00 KiB at 3.000 ms is 1.00 KiB "
        "over");
  CHECK(p[1].message ==
        "device 1 goes above the memory limit of 3.00 KiB at 4.000 ms; its peak of 4.00 KiB at 4.000 ms is 1.00 KiB "
        "over");
}

TEST_CASE("an incomplete schedule gets its structural problems only") {
  Schedule s = generated("zbh1", 2, 2);
  s.order[1].pop_back();
  auto p = validate(s, test::uniform(s, 1, 1, 1), {});
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == ProblemKind::Missing);
}

TEST_CASE("validate_lowered lowers once and names each stuck post and the cycle") {
  // Just-before on 1F1B with two devices: each end sends first and waits for the other.
  const Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 0.5;
  const LoweredSchedule file{s, "", {}};
  const std::vector<Problem> p = validate_lowered(file, c, {CommMode::Rendezvous, LowerPolicy::JustBefore, {}}, {});
  REQUIRE(p.size() == 3);
  CHECK(p[0].message ==
        "deadlock under rendezvous communication: device 0 posted SEND_F(s0,m1) to device 1, which has not posted "
        "RECV_F(s1,m1) (its next post: SEND_B(s1,m0))");
  CHECK(p[1].device == 1);
  CHECK(p[2].message == "deadlock: devices wait in a cycle: device 0 -> device 1 -> device 0");
  CHECK(p[2].device == 0);
  // The default (timed) lowering never deadlocks, and overlap needs no lowering.
  CHECK(validate_lowered(file, c, {CommMode::Rendezvous, std::nullopt, {}}, {}).empty());
  CHECK(validate_lowered(file, c, {}, {}).empty());
}
