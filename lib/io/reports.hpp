#pragma once
// The readable summaries and JSON documents of the CLI's reports: one simulation, a comparison
// of schedules, and a validation. The library builds the text; apps/ decides where it goes.
#include <optional>
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "model/problem.hpp"
#include "model/schedule.hpp"
#include "sim/critical_path.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// A readable summary: makespan, step time, bubble rates, lower bound, and per device busy,
/// idle and peak memory.
[[nodiscard]] std::string simulation_text(const Schedule& schedule, const SimResult& result);

struct ComparisonRow {
  std::string schedule;
  SimResult result;
  std::optional<bool> within_memory_limit;  ///< set when the comparison has a memory limit
};

/// The critical path (critical_path()), a line per op: its device, start, end and name, and
/// whether it waited for a transfer from the device before it; a count and the span first.
[[nodiscard]] std::string critical_path_text(const std::vector<CriticalStep>& path);

/// One row per schedule: makespan, step time, bubble rates, ratio of step time to the first
/// row's, and each device's peak memory, marked when it is over the comparison's memory limit.
[[nodiscard]] std::string comparison_text(const std::vector<ComparisonRow>& rows);

/// {"format": "pipeplan.comparison", ..., "rows": [{"schedule", "makespan_ms", "step_ms",
/// "bubble_rate", "span_bubble_rate", "lower_bound_ms", "ratio_to_first", "peak_memory_bytes",
/// and "within_memory_limit" when there is a limit}]}.
[[nodiscard]] Json comparison_to_json(const std::vector<ComparisonRow>& rows);

/// "valid: ..." or one line per problem.
[[nodiscard]] std::string validation_text(const Schedule& schedule, const std::vector<Problem>& problems);

/// {"format": "pipeplan.validation", ..., "valid", "problems": [{"kind", "device", "message"}]}.
[[nodiscard]] Json validation_to_json(const Schedule& schedule, const std::vector<Problem>& problems);

}  // namespace pipeplan
