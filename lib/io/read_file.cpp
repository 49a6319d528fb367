#include "io/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr std::size_t kChunk = 1 << 16;

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw Error("cannot read " + path + ": " + reason);
}

// Reads to the end; a stream (pipe, device) is checked for NUL bytes as it comes, so that
// /dev/zero stops at its first chunk instead of filling the memory.
std::string read_all(int fd, const std::string& path, std::size_t size_hint) {
  std::string content;
  content.reserve(size_hint);
  std::size_t checked = 0;
  while (true) {
    const std::size_t old = content.size();
    content.resize(old + kChunk);
    const ssize_t n = ::read(fd, content.data() + old, kChunk);
    if (n < 0 && errno == EINTR) {
      content.resize(old);
      continue;
    }
    if (n < 0) fail(path, std::strerror(errno));
    content.resize(old + static_cast<std::size_t>(n));
    if (n == 0) return content;
    if (content.find('\0', checked) != std::string::npos) fail(path, "not a text file (it holds a NUL byte)");
    checked = content.size();
  }
}

}  // namespace

std::string read_text_file(const std::string& path) {
  const bool standard_input = path == "-";
  const int fd = standard_input ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, std::strerror(errno));
  std::string content;
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(path, std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail(path, "it is a directory; give a file");
    content = read_all(fd, path, S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0);
  } catch (...) {
    if (!standard_input) ::close(fd);
    throw;
  }
  if (!standard_input) ::close(fd);
  if (content.empty()) fail(path, "it is empty");
  return content;
}

}  // namespace pipeplan
