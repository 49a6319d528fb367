#pragma once
// Output files are written whole or not at all, and never destroy what the path is not: a
// regular file is replaced atomically (keeping its mode, and its owner where allowed); a device
// or a FIFO (-o /dev/null, a pipe) is written in place, never replaced; a symbolic link is
// followed, so its target is replaced and the link stays; a read-only file is refused, even for
// root, as `cp` refuses it. On Linux the new content goes into an unnamed O_TMPFILE that gets a
// name only once it is complete, so a crash or kill -9 leaves no temporary file behind.
#include <sys/stat.h>
#include <string>
#include <string_view>

namespace pipeplan {

/// A file written piece by piece that still appears whole or not at all, as the header says:
/// the pieces go into the unnamed file as they come, so a large output takes no more memory
/// than its largest piece. Only commit() gives it its name; destroyed without it (an exception
/// in the writer), the partial content vanishes. A device or FIFO gets each piece as it comes.
class AtomicFile {
 public:
  /// Opens the file `path` will be. Throws Error naming the path and the reason (a directory, a
  /// read-only file, a folder that does not exist).
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `piece`. Throws Error naming the path (ENOSPC on /dev/full, say).
  void write(std::string_view piece);
  /// Gives the finished file its name (keeping the old file's mode and owner). Throws Error.
  void commit();

 private:
  [[noreturn]] void give_up(int error);

  std::string shown_;   // the path as the user gave it, for errors
  std::string target_;  // the path with links followed
  bool in_place_ = false;
  bool exists_ = false;
  struct stat old_ {};
  std::string temp_;  // a named temporary, where the file system has no O_TMPFILE
  int fd_ = -1;
};

/// Writes `content` to `path` as the header says. Throws Error naming the path and the reason
/// (a short write to a device, such as ENOSPC on /dev/full, is an error too).
void write_file_atomically(const std::string& path, std::string_view content);

/// `path` with every symbolic link on its last component followed (relative targets resolved
/// against the link's folder), so that a dangling link names the file it would create. Throws
/// Error for a loop of links.
[[nodiscard]] std::string follow_links(const std::string& path);

}  // namespace pipeplan
