#pragma once
// Whether a lowered schedule can run: a predicate on the schedule alone, so the simulator that
// runs it, the validator and the readers ask it without depending on how it was lowered.
#include <vector>

#include "model/lowered.hpp"
#include "model/problem.hpp"

namespace pipeplan {

/// What makes a lowering unusable, every problem: a send on a device that does not hold its
/// stage or before the op that produces it, a receive after the op that needs it or missing,
/// a transfer with no matching post at the other end, and sends and receives of one device pair
/// posted in orders that pair the wrong ones (NCCL matches them in posting order per pair).
/// Empty when the lowering can run (it may still deadlock; the simulator says).
/// Precondition: the compute schedule allows timing (find_structure_problems).
[[nodiscard]] std::vector<Problem> lowering_problems(const LoweredSchedule& lowered);

}  // namespace pipeplan
