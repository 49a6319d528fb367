#pragma once
// A deadlock in words, from the records the simulators return: the validator's problems, the
// CLI's errors and replay's refusals all say it the same way.
#include <string>
#include <vector>

#include "sim/comm_simulator.hpp"

namespace pipeplan {

/// "device 0 posted SEND_F(s0,m1) to device 1, which has not posted RECV_F(s1,m1) (its next
/// post: RECV_B(s1,m0))", and the like for each StuckReason.
[[nodiscard]] std::string describe(const StuckDevice& stuck);

/// "device 0 -> device 1 -> device 0" for a wait cycle; "" for none.
[[nodiscard]] std::string describe_cycle(const std::vector<int>& cycle);

}  // namespace pipeplan
