#pragma once
// Reading JSON text with messages that point at the problem: "FILE:LINE:COLUMN: ..." for
// malformed text, and "FILE: stages[2].f_ms: expected ..., got ..." for a wrong value.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "io/read_file.hpp"  // read_text_file, which every reader of JSON uses

namespace pipeplan {

// Insertion-ordered, so that files keep "format" first and fields in the documented order.
using Json = nlohmann::ordered_json;

/// Parses `text`, which came from `source` (a file name, for messages). Throws Error with the
/// line and column of the first syntax error, and for nesting deeper than 256 levels.
[[nodiscard]] Json parse_json(std::string_view text, const std::string& source);

/// Dumps `value` with two-space indentation, keeping each array or object that holds only
/// numbers, strings, booleans or nulls on one line, so that an op is one line of the file.
[[nodiscard]] std::string to_json_text(const Json& value);

}  // namespace pipeplan
