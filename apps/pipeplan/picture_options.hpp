#pragma once
// --svg FILE and --trace FILE on simulate and compare: the common case of export in one go.
#include <CLI/CLI.hpp>

#include <string>

namespace pipeplan::cli {

struct PictureFlags {
  std::string svg;
  std::string trace;
};

/// Registers --svg FILE and --trace FILE on `sub`.
void add_picture_options(CLI::App& sub, PictureFlags& flags);

}  // namespace pipeplan::cli
