#pragma once
// The files a command reads and writes, checked before it does any work: an output must be
// neither one of its inputs nor another of its outputs (simulate s.json -o s.json would destroy
// the schedule it reads), and standard input can be read only once.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace pipeplan::cli {

struct FileRole {
  std::string flag;  ///< "-o", "--svg", or "the input" for a positional file, for messages
  std::string path;  ///< empty: not given
  bool output = false;
};

/// Throws UsageError for an output that is the same file as an input or another output: the same
/// device and inode when it exists, else the same normalised path. "-" (stdout) and character
/// devices (/dev/null, which loses nothing) may appear more than once as outputs.
void check_file_roles(const std::vector<FileRole>& roles);

/// A check for every file flag: an empty name is a usage error, not standard output.
[[nodiscard]] CLI::Validator file_name();

}  // namespace pipeplan::cli
