#pragma once
// The planner's outcome as text for people, beside io/plan_json.hpp which writes it for scripts:
// the text lives in io with every other format, so lib/plan only searches.
#include <cstddef>
#include <string>

#include "plan/planner.hpp"

namespace pipeplan {

/// A table of the best `top` rows, with how many configurations were tried, how many went over
/// memory (and by how much the closest did) and why the others were refused.
[[nodiscard]] std::string plan_text(const PlanOutcome& outcome, std::size_t top);

/// Where each of the best `top` rows' step goes, line by line with its share (step_breakdown.hpp).
[[nodiscard]] std::string plan_breakdown_text(const PlanOutcome& outcome, std::size_t top);

/// "zbv, pp 4 x 2 chunks, dp 2, tp 1, 32 micro-batches, layout E,t*3|...".
[[nodiscard]] std::string plan_row_title(const PlanRow& row);

}  // namespace pipeplan
