#pragma once
// Output files are written whole or not at all, and never destroy what the path is not: a
// regular file is replaced atomically (keeping its mode, and its owner where allowed); a device
// or a FIFO (-o /dev/null, a pipe) is written in place, never replaced; a symbolic link is
// followed, so its target is replaced and the link stays; a read-only file is refused, even for
// root, as `cp` refuses it. On Linux the new content goes into an unnamed O_TMPFILE that gets a
// name only once it is complete, so a crash or kill -9 leaves no temporary file behind.
#include <string>
#include <string_view>

namespace pipeplan {

/// Writes `content` to `path` as the header says. Throws Error naming the path and the reason
/// (a short write to a device, such as ENOSPC on /dev/full, is an error too).
void write_file_atomically(const std::string& path, std::string_view content);

/// `path` with every symbolic link on its last component followed (relative targets resolved
/// against the link's folder), so that a dangling link names the file it would create. Throws
/// Error for a loop of links.
[[nodiscard]] std::string follow_links(const std::string& path);

}  // namespace pipeplan
