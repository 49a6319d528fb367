#pragma once
// Random schedules for the property tests: complete ones that cannot deadlock, and ones with a
// deadlock planted in them whose wait cycle is known in advance.
#include <random>
#include <vector>

#include "model/schedule.hpp"

namespace pipeplan::test {

/// A random complete schedule for P devices, P x V stages and M micro-batches that cannot
/// deadlock: the stages are placed in a loop, a V (V = 2) or on any device at random; each
/// (stage, micro-batch) gets a fused or a split backward; ops are handed out in a random order
/// in which each comes after everything it needs; a forward and a fused backward ready together
/// on one device sometimes become one overlapped FB op, whose inputs may come from two devices.
[[nodiscard]] Schedule random_schedule(std::mt19937& random, int devices, int chunks, int microbatches);

/// A random schedule (2 to 5 devices) that deadlocks with a planted wait cycle of 2 or more
/// devices c0 .. c(k-1): stages t .. t+k sit on c0, c1, .., c(k-1), c0, each c(i) (i >= 1) runs
/// F(t+i, m) first and c0 runs F(t+k, m) first, so c0 waits on c(k-1), which waits on
/// c(k-2), .., c1 on c0. Often another device starts with a W before its own B and waits on
/// itself. Everything else is handed out as random_schedule does; such devices may wait on the
/// stuck ones but never in a cycle of their own (each device's list follows one global order in
/// which every op comes after what it needs).
struct PlantedDeadlock {
  Schedule schedule;
  std::vector<int> cycle;  ///< as the validator must name it: from its smallest device, back to it
  int self_waiting = -1;   ///< the device stuck at its own W, or -1
};
[[nodiscard]] PlantedDeadlock random_deadlock(std::mt19937& random, int microbatches);

}  // namespace pipeplan::test
