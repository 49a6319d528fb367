#pragma once
// What the terminal allows: its width and whether it takes colours.
#include <string>

#include "io/text_timeline.hpp"

namespace pipeplan::cli {

/// Text options for writing to `path`: stdout (empty or "-") gets the terminal's width ($COLUMNS
/// or the window size) and colours when it is a terminal; a file gets 100 columns, no colours.
[[nodiscard]] TextOptions terminal_text_options(const std::string& path);

}  // namespace pipeplan::cli
