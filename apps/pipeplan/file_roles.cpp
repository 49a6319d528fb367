#include "file_roles.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "command.hpp"
#include "io/atomic_file.hpp"
#include "model/error.hpp"

namespace pipeplan::cli {

namespace {

struct Identity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;  // normalised, when the file does not exist yet
  bool character_device = false;

  bool operator==(const Identity& o) const {
    return exists == o.exists && (exists ? device == o.device && inode == o.inode : path == o.path);
  }
};

Identity identity_of(const std::string& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
    id.character_device = S_ISCHR(st.st_mode);
    return id;
  }
  // Not there yet: the links on the way resolved, "a/../b" and "./b" written as "b".
  std::error_code ec;
  std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(follow_links(path)), ec);
  id.path = (ec ? std::filesystem::path(path) : resolved).lexically_normal().string();
  return id;
}

std::string shown(const FileRole& r) {
  return r.flag + " " + r.path;
}

}  // namespace

void check_file_roles(const std::vector<FileRole>& roles) {
  std::optional<std::string> standard_input;
  std::vector<std::pair<const FileRole*, Identity>> seen;
  for (const FileRole& r : roles) {
    if (r.path.empty()) continue;
    if (r.path == "-") {
      if (r.output) continue;  // standard output takes any number of writes
      if (standard_input) {
        throw UsageError(shown(r) + ": standard input is already read by " + *standard_input + "; it can be read once");
      }
      standard_input = r.flag;
      continue;
    }
    Identity id = identity_of(r.path);
    for (const auto& [other, other_id] : seen) {
      if (!(r.output || other->output) || !(id == other_id)) continue;
      if (id.character_device && r.output && other->output) continue;
      const FileRole& out = r.output ? r : *other;
      const FileRole& in = r.output ? *other : r;
      throw UsageError(shown(out) + ": the same file as " + shown(in) + "; " +
                       (in.output ? "two outputs would overwrite each other" : "writing it would destroy the input") +
                       ": choose another name");
    }
    seen.emplace_back(&r, std::move(id));
  }
}

CLI::Validator file_name() {
  return CLI::Validator(
      [](const std::string& value) {
        return value.empty() ? std::string("expected a file name, got an empty one") : std::string();
      },
      "FILE");
}

}  // namespace pipeplan::cli
