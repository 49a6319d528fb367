#pragma once
#include <string>

namespace pipeplan::cli {

/// Writes `content` to `path` whole or not at all, or to stdout when `path` is empty or "-".
void emit(const std::string& path, const std::string& content);

}  // namespace pipeplan::cli
