#pragma once
// The result file (docs/formats.md, "Result"): what a simulation measured.
#include "io/json_text.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// The result of simulating `schedule` as a "pipeplan.result" document: makespan, bubble rate,
/// step time, per-device busy, idle and peak memory with its memory timeline, and every op.
[[nodiscard]] Json result_to_json(const Schedule& schedule, const SimResult& result);

}  // namespace pipeplan
