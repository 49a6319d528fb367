#pragma once
// The validator (DESIGN.md, "Validator"): every problem of a schedule, not only the first.
#include <optional>
#include <vector>

#include "costs/cost_model.hpp"
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

/// The problems of a lowered schedule under blocking or rendezvous communication: those of
/// its compute schedule (validate), then those of its lowering (lowering_problems), then a
/// deadlock: one problem per stuck device saying which post waits for which, and one naming
/// the cycle of waiting devices.
[[nodiscard]] std::vector<Problem> validate_lowered(const LoweredSchedule& lowered, const CostModel& costs,
                                                    CommMode mode, const ValidateOptions& options);

}  // namespace pipeplan
