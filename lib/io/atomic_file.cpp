#include "io/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "model/error.hpp"

namespace pipeplan {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& temp, int error) {
  if (!temp.empty()) std::remove(temp.c_str());
  throw Error("cannot write " + path + ": " + std::strerror(error));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) fail(path, "", errno);
  std::string temp(name.data());
  std::size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      fail(path, temp, error);
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates the file as 0600; give it the usual permissions for an output file.
  if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0) fail(path, temp, errno);
  if (std::rename(temp.c_str(), path.c_str()) != 0) fail(path, temp, errno);
}

}  // namespace pipeplan
