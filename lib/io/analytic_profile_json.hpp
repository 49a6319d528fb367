#pragma once
// An analytic profile as a profile document (docs/formats.md, "Profile"): what `pipeplan profile`
// writes.
#include <string>

#include "costs/cost_model.hpp"
#include "io/json_text.hpp"

namespace pipeplan {

/// The profile document with a "name" and "source" after the header, saying what it estimates.
[[nodiscard]] Json analytic_profile_to_json(const CostModel& costs, const std::string& name, const std::string& source);

}  // namespace pipeplan
