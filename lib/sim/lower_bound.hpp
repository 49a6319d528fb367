#pragma once
// A lower bound on the step time that no schedule with this placement can beat under these
// costs (docs/model.md, "The lower bound"). It tells how far a schedule is from the best possible.
#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// A lower bound on SimResult::step_time() for any complete schedule with the placement,
/// stages and micro-batches of `schedule`, under `costs` and `mode`, for any number of
/// iterations. Post-validation: the busiest device's work plus its optimizer step. Sync: also
/// the time before the first micro-batch can reach each device, and one micro-batch's round
/// trip through every stage (left out when the costs give overlapped FB ops their own time,
/// which may undercut their parts). Throws Error when the costs do not match the schedule.
[[nodiscard]] SimTime step_lower_bound(const Schedule& schedule, const CostModel& costs, OptimizerMode mode);

}  // namespace pipeplan
