#pragma once
// Standard output is a file like any other: a write to it that fails (`> /dev/full`, a closed
// stdout, a full disk behind `>`) is an error naming it, never a silent exit 0 (issue 31, item
// 1). Every command's exit passes through main(), which asks finish_standard_output() last.
#include <optional>
#include <string>
#include <string_view>

namespace pipeplan::cli {

/// What errors about standard output call it.
inline constexpr std::string_view kStandardOutputName = "standard output";

/// Run first: a standard stream that is closed (`>&-`) gets /dev/null opened read-only in its
/// place, so that no file the command opens later takes its number (a schedule written to fd 1
/// would then also get the table meant for stdout), and so that a write to it still fails
/// (EBADF) instead of vanishing.
void hold_standard_streams();

/// Writes `piece` to standard output now; throws Error "cannot write standard output: REASON"
/// at the first failure, so a large stream stops at once.
void write_standard_output(std::string_view piece);

/// Flushes and closes standard output: std::nullopt when everything written reached it,
/// otherwise "cannot write standard output: REASON" (unless write_standard_output() already threw
/// it). Run last, once.
[[nodiscard]] std::optional<std::string> finish_standard_output();

}  // namespace pipeplan::cli
