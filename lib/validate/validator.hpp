#pragma once
// The validator (DESIGN.md, "Validator"): every problem of a schedule, not only the first.
#include <optional>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/problem.hpp"
#include "model/schedule.hpp"
#include "model/units.hpp"

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

}  // namespace pipeplan
