#pragma once
// The checks that need no costs and no timing: does the schedule hold every op exactly once, on
// the device of its stage, with no op ahead of one it needs on the same device?
#include <vector>

#include "model/problem.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// Every structural problem of `schedule`, in a stable order: header, out-of-range, wrong-device,
/// missing, repeated, mixed-backward and misordered ops. Ops are named by their place in the
/// schedule file, `order[device][index]`. Empty when the op set is complete and ordered.
[[nodiscard]] std::vector<Problem> find_structure_problems(const Schedule& schedule);

/// True when `problems` still allow the schedule to be timed: only misordered ops, which the
/// simulator then reports as a deadlock.
[[nodiscard]] bool allows_timing(const std::vector<Problem>& problems);

}  // namespace pipeplan
