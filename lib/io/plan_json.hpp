#pragma once
// The planner's outcome as JSON for scripts (docs/formats.md, "Plan").
#include "io/json_text.hpp"
#include "plan/planner.hpp"

namespace pipeplan {

/// {"format": "pipeplan.plan", ..., "considered", "over_memory", "refused": {reason: count},
/// "rows": [every row within memory, best first]}.
[[nodiscard]] Json plan_to_json(const PlanOutcome& outcome);

}  // namespace pipeplan
