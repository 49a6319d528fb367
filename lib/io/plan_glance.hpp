#pragma once
// The planner's outcome at a glance (docs/launch.md, "The table at a glance"): plan_text's
// summary and table in a terminal's width, the layout column compressed and the header in short
// lines, and one line saying why the first row wins over the second. `plan --wide` prints
// plan_text instead, every column in full.
#include <cstddef>
#include <string>
#include <string_view>

#include "plan/planner.hpp"

namespace pipeplan {

/// The columns every line of plan_glance_text keeps within.
inline constexpr std::size_t kGlanceWidth = 120;

/// The summary, the best `top` rows and the line under them, no line wider than `width`.
[[nodiscard]] std::string plan_glance_text(const PlanOutcome& outcome, std::size_t top,
                                           std::size_t width = kGlanceWidth);

/// A layout with each run of equal stages written once with its count:
/// "E,t*5|t*5|t*5|t*6|t*4,H" is "E,t*5 | t*5 x2 | t*6 | t*4,H".
[[nodiscard]] std::string compressed_layout(std::string_view layout);

/// The layout in fewer words, its layers per stage: "2-3 layers/stage", or "4 layers/stage" where
/// every stage holds the same (the stage count is pp x V, the embedding first and the head last).
[[nodiscard]] std::string layout_summary(std::string_view layout);

/// Why `first` ranks above `second`, in one line, from their step breakdowns: what makes the
/// second's step longer (its bubble, an exposed communication, recompute for memory, more
/// compute); or, for equal steps, the memory. Empty when either row has no breakdown.
[[nodiscard]] std::string row_contrast(const PlanRow& first, const PlanRow& second);

/// Each line of `text` longer than `width` broken at spaces, its continuation indented four
/// columns past the line's own indent; a word longer than the room is cut.
[[nodiscard]] std::string wrap_lines(std::string_view text, std::size_t width);

}  // namespace pipeplan
