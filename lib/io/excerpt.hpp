#pragma once
// A value from a file, quoted in an error message: a malformed 10 MB CSV cell made a 10 MB
// message (issue 31, item 11). Long text is cut, and the message says how long it was.
#include <cstddef>
#include <string>
#include <string_view>

namespace pipeplan {

/// `text` whole when it has at most `most` bytes; else its first `most` bytes (never splitting a
/// UTF-8 character), "...", and its length: "0F0xxxx... (10485760 bytes)".
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t most = 40);

}  // namespace pipeplan
