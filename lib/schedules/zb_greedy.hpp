#pragma once
// One pass of the greedy list scheduler behind the automatic zero-bubble schedules. It plays
// the pipeline forward in simulated time and, whenever a device falls idle, picks its next op
// from what is ready: the rules are those of the ZB paper's heuristic (Qi et al., ICLR 2024,
// section 3), written for any placement and per-stage costs.
#include <optional>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// The on/off choices one pass makes; the search tries every combination.
struct GreedyChoices {
  /// Put a W into an idle gap shorter than W (delaying what arrives), not only into gaps it fits.
  bool fill_short_gaps = false;
  /// Hold back an F that would still be running when a B's input arrives; run a W that fits
  /// before it, or wait.
  bool hold_forward_for_backward = false;
};

/// The problem: `shape` gives devices, stages, micro-batches and placement (its order is
/// ignored); `limit` is each device's memory limit, static memory included. `costs` has one
/// entry per stage and per device.
struct GreedyProblem {
  const Schedule& shape;
  const CostModel& costs;
  std::vector<Bytes> limit;
};

/// What one pass planned: the order, and the times the pass gave it.
struct GreedySchedule {
  Schedule schedule;
  /// Every op started as soon as its device and its inputs allowed. The simulator then gives the
  /// same times (it starts each op at exactly that moment), so the makespan and the longest
  /// per-device span below are the simulated ones. A pass that let a device idle before an op
  /// it could have run (a W held back for a gap) leaves this false: simulate to know.
  bool as_early_as_possible = false;
  SimTime makespan = 0;
  SimTime longest_span = 0;
};

/// One op as a pass planned it: where and when it starts, and when its last input was there by
/// the pass's own arrival times (0 for a W, whose B ran on its device already, and for stage 0's
/// forward). What a test holds against the simulator's times.
struct PlannedOp {
  Op op;
  int device = 0;
  SimTime start = 0;
  SimTime inputs_arrived = 0;
};

/// Each device's op order from one greedy pass: B as soon as it can run; else F when its input
/// has arrived and memory allows (leaving room for one forward of each later stage the device
/// holds); else W when memory is full, when the idle gap fits it, or when the pass allows short
/// gaps. nullopt when the pass gets stuck: every device waits and none can run within its limit.
[[nodiscard]] std::optional<GreedySchedule> greedy_zero_bubble(const GreedyProblem& problem,
                                                               const GreedyChoices& choices);

/// greedy_zero_bubble, and every op it planned appended to `planned`, in the order it planned them.
[[nodiscard]] std::optional<GreedySchedule> greedy_zero_bubble(const GreedyProblem& problem,
                                                               const GreedyChoices& choices,
                                                               std::vector<PlannedOp>& planned);

}  // namespace pipeplan
