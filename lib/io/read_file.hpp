#pragma once
// Reading an input file whole: a regular file, standard input ("-", /dev/stdin), a pipe or a
// FIFO. What holds no text is refused by name: a directory, an empty file (/dev/null), a file
// with NUL bytes (a binary file, /dev/zero, which would otherwise never end).
#include <string>

namespace pipeplan {

/// The whole content of the file at `path`, or of standard input when `path` is "-". Throws
/// Error naming the path and the reason.
[[nodiscard]] std::string read_text_file(const std::string& path);

}  // namespace pipeplan
