#pragma once
// `plan --launch`: a row's launch (plan/launch.hpp) as the framework reads it, Megatron-LM's
// arguments one a line for a shell script, torchtitan's keys as TOML tables; what the
// framework runs differently from the row, and the closest run's prediction, as comments.
#include <cstddef>
#include <string>

#include "plan/launch.hpp"

namespace pipeplan::cli {

/// `launch` of row `number` (from 1) of the plan, `row`.
[[nodiscard]] std::string launch_text(const LaunchPlan& launch, const PlanRow& row, std::size_t number);

}  // namespace pipeplan::cli
