#include "standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "model/error.hpp"

namespace pipeplan::cli {

namespace {

// The first failure's errno, kept: a later flush or close may succeed, or set errno to nothing
// that says what went wrong.
int first_error = 0;
// Whether write_standard_output() already threw it, so main() does not say it twice.
bool thrown = false;

std::string failure(int error) {
  return "cannot write " + std::string(kStandardOutputName) + ": " +
         (error != 0 ? std::strerror(error) : "a write failed");
}

void note(int error) {
  if (first_error == 0) first_error = error != 0 ? error : EIO;
}

}  // namespace

void hold_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free number, which is `fd` since the lower ones are held.
    const int held = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (held >= 0 && held != fd) ::close(held);
  }
}

void write_standard_output(std::string_view piece) {
  errno = 0;
  std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  if (!std::cout || std::ferror(stdout) != 0) {
    note(errno);
    thrown = true;
    throw Error(failure(first_error));
  }
}

std::optional<std::string> finish_standard_output() {
  // std::cout writes through stdout's buffer (iostreams stay synchronised with stdio), so
  // flushing both, then closing, reaches every byte; close() reports delayed errors (NFS).
  errno = 0;
  std::cout.flush();
  if (!std::cout) note(errno);
  errno = 0;
  if (std::fflush(stdout) != 0) note(errno);
  if (std::ferror(stdout) != 0) note(0);
  errno = 0;
  if (std::fclose(stdout) != 0) note(errno);
  if (first_error == 0 || thrown) return std::nullopt;
  return failure(first_error);
}

}  // namespace pipeplan::cli
