#pragma once
// Text from files on its way to a terminal: a schedule's name could hold an ANSI escape that
// clears the screen or retitles the window, so control characters are shown, never sent.
#include <string>
#include <string_view>

namespace pipeplan {

/// `text` with every control character but newline and tab (C0, DEL, and C1 as UTF-8) written
/// as a visible escape such as \x1b or \u009b; everything else, UTF-8 included, unchanged.
[[nodiscard]] std::string printable(std::string_view text);

}  // namespace pipeplan
