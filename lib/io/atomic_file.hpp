#pragma once
// Output files are written whole or not at all: into a temporary file beside the target, then
// renamed over it, so a failed run never leaves half a file or destroys the old one.
#include <string>
#include <string_view>

namespace pipeplan {

/// Writes `content` to `path` atomically. Throws Error naming the path and the reason.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace pipeplan
