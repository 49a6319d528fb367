#pragma once
// The schedule file (docs/formats.md, "Schedule").
#include <string>

#include "io/json_text.hpp"
#include "model/lowered.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// Reads a "pipeplan.schedule" document parsed from `source`. Checks the header fields and
/// that every op names a kind, a stage and a micro-batch within the schedule's counts; whether
/// the ops make a complete, ordered schedule is the validator's question. Throws Error naming
/// the field, e.g. "s.json: order[1][4].kind". Sends and receives of a lowered schedule are
/// read and left out: the compute schedule is what they lower.
[[nodiscard]] Schedule schedule_from_json(const Json& document, const std::string& source);

/// Reads the schedule file at `path`.
[[nodiscard]] Schedule read_schedule_file(const std::string& path);

/// The schedule as a document, with the header.
[[nodiscard]] Json schedule_to_json(const Schedule& schedule);

/// A schedule document with its sends and receives (SEND_F, RECV_F, SEND_B, RECV_B, each
/// optionally "batched" with the entry before it) and its "lowering" policy, if any.
[[nodiscard]] LoweredSchedule lowered_from_json(const Json& document, const std::string& source);
[[nodiscard]] LoweredSchedule read_lowered_file(const std::string& path);

/// The lowered schedule as a schedule document: the ops and posts in order, and "lowering".
[[nodiscard]] Json lowered_to_json(const LoweredSchedule& lowered);

}  // namespace pipeplan
