#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr int kMaxLinks = 40;  // what the kernel allows before ELOOP

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw Error("cannot write " + path + ": " + reason);
}

[[noreturn]] void fail(const std::string& path, int error) {
  fail(path, std::strerror(error));
}

// 0, or the errno of the first failed write; a write of 0 bytes would loop forever.
int write_all(int fd, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A name beside `target` that no other writer, in this process or another, picks.
std::string sibling_name(const std::string& target) {
  static std::atomic<unsigned> counter{0};
  return target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// The new file takes the old one's mode and, where the kernel lets us, its owner: chown first,
// since it clears set-user-ID bits that the chmod then restores.
void keep_mode_and_owner(int fd, const struct stat& old) {
  if (::fchown(fd, old.st_uid, old.st_gid) != 0) (void)!::fchown(fd, static_cast<uid_t>(-1), old.st_gid);
  (void)::fchmod(fd, old.st_mode & 07777);
}

// Gives the finished unnamed file a name: the target itself when there is none yet (linkat
// never replaces), otherwise a sibling renamed over the target. Returns 0 or an errno.
int publish_unnamed(int fd, const std::string& target, bool exists) {
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  auto link_to = [&](const std::string& name) {
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != ENOENT) return errno;  // ENOENT: no /proc; AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH
    return ::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0 ? 0 : errno;
  };
  if (!exists) {
    const int error = link_to(target);
    if (error != EEXIST) return error;  // EEXIST: another writer was quicker; replace theirs
  }
  const std::string temp = sibling_name(target);
  if (const int error = link_to(temp); error != 0) return error;
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return error;
  }
  return 0;
}

std::string read_link(const std::string& path) {
  std::vector<char> buffer(256);
  while (true) {
    const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
    if (n < 0) fail(path, errno);
    if (static_cast<std::size_t>(n) < buffer.size()) return std::string(buffer.data(), static_cast<std::size_t>(n));
    buffer.resize(buffer.size() * 2);
  }
}

}  // namespace

std::string follow_links(const std::string& path) {
  std::string current = path;
  for (int i = 0; i < kMaxLinks; ++i) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    const std::string next = read_link(current);
    const std::size_t slash = current.rfind('/');
    current = next.starts_with('/') || slash == std::string::npos ? next : current.substr(0, slash + 1) + next;
  }
  fail(path, std::strerror(ELOOP));
}

AtomicFile::AtomicFile(const std::string& path) : shown_(path), target_(follow_links(path)) {
  if (::stat(target_.c_str(), &old_) != 0) {
    if (errno != ENOENT) fail(shown_, errno);
  } else {
    exists_ = true;
    if (S_ISDIR(old_.st_mode)) fail(shown_, "it is a directory");
    // A device or a FIFO has no content to replace: the path stays what it is and gets the bytes.
    in_place_ = !S_ISREG(old_.st_mode);
    // Root may write anything, so the mode bits decide, as for cp; others also need the right.
    if (!in_place_ && ((old_.st_mode & 0222) == 0 || ::access(target_.c_str(), W_OK) != 0)) {
      fail(shown_, "the file is read-only; make it writable (chmod u+w) or remove it first");
    }
  }
  if (in_place_) {
    fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) fail(shown_, errno);
    return;
  }
  // 0666 less the umask, as any program creating a file; an existing file's mode replaces it.
  fd_ = ::open(folder_of(target_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd_ >= 0) return;
  // Only where the file system has no O_TMPFILE: a named temporary, removed on every way out.
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(shown_, errno);
  temp_ = sibling_name(target_);
  fd_ = ::open(temp_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    temp_.clear();
    fail(shown_, errno);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFile::give_up(int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  fail(shown_, error);
}

void AtomicFile::write(std::string_view piece) {
  if (fd_ < 0) fail(shown_, "the file was already closed");
  if (const int error = write_all(fd_, piece); error != 0) give_up(error);
}

void AtomicFile::commit() {
  if (fd_ < 0) fail(shown_, "the file was already closed");
  if (!in_place_ && exists_) keep_mode_and_owner(fd_, old_);
  if (!in_place_ && temp_.empty()) {
    if (const int error = publish_unnamed(fd_, target_, exists_); error != 0) give_up(error);
  }
  // Closes now: close() reports the errors of delayed writes (NFS), which must not be lost.
  const int closed = ::close(fd_) == 0 ? 0 : errno;
  fd_ = -1;
  if (closed != 0) give_up(closed);
  if (!temp_.empty()) {
    if (std::rename(temp_.c_str(), target_.c_str()) != 0) give_up(errno);
    temp_.clear();
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

}  // namespace pipeplan
