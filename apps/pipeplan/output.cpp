#include "output.hpp"

#include <iostream>

#include "io/atomic_file.hpp"

namespace pipeplan::cli {

void emit(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content << std::flush;
    return;
  }
  write_file_atomically(path, content);
}

}  // namespace pipeplan::cli
