#pragma once
// The discrete-event simulator (docs/model.md, "The simulator"). It times a schedule; it never reorders
// it and never formats text.
#include <vector>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// Times `schedule` with `costs`: each device runs its list in order; an op starts when its
/// device is free and every input has arrived; a transfer between two devices runs beside
/// compute and delays only its consumer. F allocates a_F at its start; B frees a_F - a_W, W
/// frees a_W and BW frees a_F at their ends, so a device frees before its next op allocates.
/// With several iterations, each device runs its list again after its optimizer step, which
/// starts when `options.optimizer_mode` allows (after every device's ops, or after its own).
/// A deadlock is not an error: the result lists where each unfinished device stopped.
/// Throws Error when the op set is incomplete, repeated or misplaced (see
/// find_structure_problems), when the costs do not match the schedule's dimensions, or when
/// the iterations are fewer than 1 or would exceed the op limit.
[[nodiscard]] SimResult simulate(const Schedule& schedule, const CostModel& costs, const SimOptions& options = {});

/// Buffers a caller that simulates many schedules keeps between runs, so that each run reuses
/// memory instead of touching fresh pages (which costs more than the simulation itself).
struct SimWorkspace {
  LargeVector<SimTime> forward_end;
  LargeVector<SimTime> gradient_end;
  LargeVector<SimTime> split_b_end;
};

/// simulate() without the structural check and the checks of the costs, for code that builds
/// schedules it knows are complete (the search of the automatic schedules calls it thousands of
/// times), reusing `workspace`. Precondition: find_structure_problems(schedule) allows timing,
/// and the costs fit the schedule.
[[nodiscard]] SimResult simulate_trusted(const Schedule& schedule, const CostModel& costs, const SimOptions& options,
                                         SimWorkspace& workspace);

}  // namespace pipeplan
