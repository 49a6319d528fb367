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

// Closes the descriptor on every way out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  // Closes now: close() reports the errors of delayed writes (NFS), which must not be lost.
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

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

// A device or a FIFO has no content to replace: the path stays what it is and gets the bytes.
void write_in_place(const std::string& shown, const std::string& target, std::string_view content) {
  Descriptor fd(::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) fail(shown, errno);
  int error = write_all(fd.get(), content);
  const int closed = fd.close();
  if (error == 0) error = closed;
  if (error != 0) fail(shown, error);
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

void replace_regular(const std::string& shown, const std::string& target, const struct stat* old,
                     std::string_view content) {
  // 0666 less the umask, as any program creating a file; an existing file's mode replaces it.
  int raw = ::open(folder_of(target).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  const bool unnamed = raw >= 0;
  std::string temp;
  if (!unnamed) {
    // Only where the file system has no O_TMPFILE: a named temporary, removed on every error.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(shown, errno);
    temp = sibling_name(target);
    raw = ::open(temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
    if (raw < 0) fail(shown, errno);
  }
  Descriptor fd(raw);
  auto give_up = [&](int error) {
    if (!temp.empty()) ::unlink(temp.c_str());
    fail(shown, error);
  };
  if (const int error = write_all(fd.get(), content); error != 0) give_up(error);
  if (old != nullptr) keep_mode_and_owner(fd.get(), *old);
  if (unnamed) {
    if (const int error = publish_unnamed(fd.get(), target, old != nullptr); error != 0) give_up(error);
    if (const int error = fd.close(); error != 0) fail(shown, error);
    return;
  }
  if (const int error = fd.close(); error != 0) give_up(error);
  if (std::rename(temp.c_str(), target.c_str()) != 0) give_up(errno);
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

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string target = follow_links(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, errno);
    replace_regular(path, target, nullptr, content);
    return;
  }
  if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
  if (!S_ISREG(st.st_mode)) {
    write_in_place(path, target, content);
    return;
  }
  // Root may write anything, so the mode bits decide, as for cp; others also need the right.
  if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0) {
    fail(path, "the file is read-only; make it writable (chmod u+w) or remove it first");
  }
  replace_regular(path, target, &st, content);
}

}  // namespace pipeplan
