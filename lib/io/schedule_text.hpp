#pragma once
// The schedule file's fast path (docs/performance.md): writing its text straight from the ops,
// and reading text laid out as pipeplan writes it in one pass, without building a JSON
// document. A million-op schedule takes a fraction of a second each way.
#include <optional>
#include <string>
#include <string_view>

#include "model/lowered.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// Byte for byte to_json_text(schedule_to_json(schedule)).
[[nodiscard]] std::string schedule_json_text(const Schedule& schedule);

/// Byte for byte to_json_text(lowered_to_json(lowered)).
[[nodiscard]] std::string lowered_json_text(const LoweredSchedule& lowered);

/// The schedule in `text` when it is a schedule document whose every value is valid and that
/// uses only the keys pipeplan writes, strings without escapes and integers without fraction
/// or exponent; nullopt for anything else. The caller then reads the text as a JSON document,
/// whose reader accepts the same files and names the problem in the others. Whatever this
/// accepts, that reader reads to the same schedule. Without `with_actions` only the compute
/// schedule is kept (the actions stay empty), which saves their memory.
[[nodiscard]] std::optional<LoweredSchedule> scan_schedule_text(std::string_view text, bool with_actions = true);

}  // namespace pipeplan
