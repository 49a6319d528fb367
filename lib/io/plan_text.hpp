#pragma once
// The planner's outcome as text for people, beside io/plan_json.hpp which writes it for scripts:
// the text lives in io with every other format, so lib/plan only searches.
#include <cstddef>
#include <functional>
#include <string>

#include "plan/planner.hpp"

namespace pipeplan {

/// A table of the best `top` rows, with how many configurations were tried, how many went over
/// memory (and by how much the closest did) and why the others were refused.
[[nodiscard]] std::string plan_text(const PlanOutcome& outcome, std::size_t top);

/// The lines before plan_text's table: the counts, the closest over memory (titled by `title`),
/// the refusals, and why nothing is shown when no row is.
[[nodiscard]] std::string plan_summary_text(const PlanOutcome& outcome,
                                            const std::function<std::string(const PlanRow&)>& title);

/// Where each of the best `top` rows' step goes, line by line with its share (step_breakdown.hpp).
[[nodiscard]] std::string plan_breakdown_text(const PlanOutcome& outcome, std::size_t top);

/// The row's recompute as the wide table and titles write it: "full", or "full, block 4" when
/// only the first 4 layers of each stage recompute (recompute_block.hpp).
[[nodiscard]] std::string recompute_text(const PlanRow& row);

/// "zbv, pp 4 x 2 chunks, dp 2, tp 1, 32 micro-batches, layout E,t*3|...".
[[nodiscard]] std::string plan_row_title(const PlanRow& row);

}  // namespace pipeplan
