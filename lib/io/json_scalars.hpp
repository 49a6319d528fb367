#pragma once
// JSON scalars appended to text exactly as nlohmann's dump writes them, so that a streaming
// writer's output is byte for byte the document writer's (to_json_text).
#include <string>
#include <string_view>

namespace pipeplan {

/// An integer: 42, -7.
void append_json_int(std::string& out, long long value);

/// A double as nlohmann writes it: the shortest text that reads back to the same value, with a
/// ".0" on whole numbers (27.0, 0.1111111111111111, 1e-05); null when not finite.
void append_json_double(std::string& out, double value);

/// A quoted string with JSON's escapes; invalid UTF-8 becomes U+FFFD, as in the documents.
void append_json_string(std::string& out, std::string_view text);

}  // namespace pipeplan
