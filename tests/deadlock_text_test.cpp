#include <doctest/doctest.h>

#include "validate/deadlock_text.hpp"

using namespace pipeplan;

TEST_CASE("each stuck record reads as the sentence the reports have always printed") {
  const LoweredAction send = LoweredAction::communicate({CommKind::SendF, 0, 1}, false);
  const LoweredAction receive = LoweredAction::communicate({CommKind::RecvB, 0, 0}, false);
  CHECK(describe(StuckDevice{2, StuckReason::AtCompute, LoweredAction::compute({OpKind::F, 2, 3}), -1, {}}) ==
        "device 2 is stuck at F(s2,m3)");
  CHECK(describe(StuckDevice{2, StuckReason::AtCompute, std::nullopt, -1, {}}) ==
        "device 2 is stuck at the end of its list");
  CHECK(describe(StuckDevice{0, StuckReason::DataNotReady, send, 1, {}}) ==
        "device 0 posted SEND_F(s0,m1) to device 1 but cannot post it: its data is not produced yet");
  CHECK(describe(StuckDevice{0, StuckReason::LinkBusy, receive, 1, {}}) ==
        "device 0 posted RECV_B(s0,m0) from device 1, which waits for the transfer before it on the link");
  CHECK(describe(StuckDevice{0, StuckReason::PeerNotPosted, send, 1, std::nullopt}) ==
        "device 0 posted SEND_F(s0,m1) to device 1, which has not posted RECV_F(s1,m1) (its next post: none)");
  CHECK(describe(StuckDevice{0, StuckReason::PeerNotPosted, send, 1, LoweredAction::compute({OpKind::B, 1, 0})}) ==
        "device 0 posted SEND_F(s0,m1) to device 1, which has not posted RECV_F(s1,m1) (its next post: B(s1,m0))");
  CHECK(describe(StuckDevice{4, StuckReason::Unexplained, std::nullopt, -1, {}}) == "device 4 is stuck");
}

TEST_CASE("a wait cycle reads device by device") {
  CHECK(describe_cycle({1, 3, 1}) == "device 1 -> device 3 -> device 1");
  CHECK(describe_cycle({}).empty());
}
