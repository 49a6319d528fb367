#pragma once
// The validator (docs/model.md, "The validator"): every problem of a schedule, not only the first.
#include <optional>
#include <vector>

#include "costs/cost_model.hpp"
#include "lower/simulate_lowered.hpp"
#include "model/lowered.hpp"
#include "model/problem.hpp"
#include "model/schedule.hpp"
#include "model/units.hpp"
#include "sim/comm_simulator.hpp"

namespace pipeplan {

struct ValidateOptions {
  std::optional<Bytes> memory_limit;  ///< per device, static memory included
};

/// Every problem of `schedule` under `costs`: the structural ones (find_structure_problems);
/// then, when the op set is complete, a deadlock (one problem per blocked device, naming its
/// op and what that op waits for, and one naming the cycle of waiting devices) and each device
/// whose memory goes above the limit (when, its peak, and by how much). Empty when valid.
/// Throws Error only when `costs` does not fit the schedule.
[[nodiscard]] std::vector<Problem> validate(const Schedule& schedule, const CostModel& costs,
                                            const ValidateOptions& options);

/// The problems of a schedule file under `how.mode`: those of its compute schedule (validate);
/// under blocking or rendezvous, when there are none, those of the lowering it runs with
/// (lowering_to_run: its own posts or `how.policy`'s; lowering_problems), then a deadlock: one
/// problem per stuck device saying which post waits for which, and one naming the cycle of
/// waiting devices. Each step runs only when the one before found nothing: a lowering needs a
/// timeable compute schedule. Throws Error as lowering_to_run does.
[[nodiscard]] std::vector<Problem> validate_lowered(const LoweredSchedule& file, const CostModel& costs,
                                                    const CommRun& how, const ValidateOptions& options);

}  // namespace pipeplan
