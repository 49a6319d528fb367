#pragma once
// The schedule file (docs/formats.md, "Schedule").
#include <string>

#include "io/json_text.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// Reads a "pipeplan.schedule" document parsed from `source`. Checks the header fields and
/// that every op names a kind, a stage and a micro-batch within the schedule's counts; whether
/// the ops make a complete, ordered schedule is the validator's question. Throws Error naming
/// the field, e.g. "s.json: order[1][4].kind".
[[nodiscard]] Schedule schedule_from_json(const Json& document, const std::string& source);

/// Reads the schedule file at `path`.
[[nodiscard]] Schedule read_schedule_file(const std::string& path);

/// The schedule as a document, with the header.
[[nodiscard]] Json schedule_to_json(const Schedule& schedule);

}  // namespace pipeplan
