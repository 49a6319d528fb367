#pragma once
#include <string>

namespace pipeplan {

/// "pipeplan 0.1.0": the tool and version written into every file pipeplan writes.
[[nodiscard]] std::string tool_version();

}  // namespace pipeplan
