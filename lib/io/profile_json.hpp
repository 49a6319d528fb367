#pragma once
// The profile file (docs/formats.md, "Profile"): per-stage and per-device costs.
#include <string>
#include <string_view>

#include "costs/cost_model.hpp"
#include "io/json_text.hpp"

namespace pipeplan {

/// Reads a "pipeplan.profile" document parsed from `source`. "devices" may be left out (the
/// result then has none; see default_devices) and so may "transfer" (transfers take no time).
/// "boundaries", one transfer per stage boundary, needs schema_version 2 and stages - 1 entries;
/// a stage's "f_workspace_bytes" and "b_workspace_bytes" need schema_version 3.
/// Throws Error naming the field.
[[nodiscard]] CostModel profile_from_json(const Json& document, const std::string& source);

/// Reads the profile file at `path`.
[[nodiscard]] CostModel read_profile_file(const std::string& path);

/// The profile as a document, with the header: schema_version 1, 2 when it has `boundaries`, 3
/// when a stage has a workspace.
[[nodiscard]] Json profile_to_json(const CostModel& costs);

}  // namespace pipeplan
