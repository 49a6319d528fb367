#pragma once
// Text inside SVG and HTML: the characters markup gives a meaning to, escaped.
#include <string>
#include <string_view>

namespace pipeplan {

/// `text` with &, <, > and " written as entities, safe in element text and quoted attributes,
/// and the control characters XML forbids (all below 0x20 but tab, newline and return) replaced
/// by U+FFFD.
[[nodiscard]] std::string xml_escape(std::string_view text);

}  // namespace pipeplan
