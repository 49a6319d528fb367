#pragma once
// The cycle of devices that wait on each other in a deadlock, found in the whole wait-for graph
// rather than along the chain from one device, which may only lead into the cycle.
#include <vector>

namespace pipeplan {

/// One cycle of two or more devices in a wait-for graph: `waits_on[d]` lists the devices that
/// device d waits for (none when it is not blocked). A device waiting on itself is no cycle here
/// (a misordered op). Returns the cycle as `a -> b -> ... -> a`, starting at its smallest
/// device, with only the devices on it (not those that merely wait on it); when there are
/// several, the one a depth-first search from device 0 meets first. Empty when there is none.
[[nodiscard]] std::vector<int> wait_cycle(const std::vector<std::vector<int>>& waits_on);

}  // namespace pipeplan
