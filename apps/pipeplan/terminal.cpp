#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace pipeplan::cli {

TextOptions terminal_text_options(const std::string& path) {
  TextOptions options;
  options.width = 100;
  if (!path.empty() && path != "-") return options;
  options.colour = isatty(STDOUT_FILENO) != 0;
  winsize size{};
  if (options.colour && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    options.width = size.ws_col;
  } else if (const char* columns = std::getenv("COLUMNS")) {
    const int value = std::atoi(columns);
    if (value >= 20 && value <= 1000) options.width = value;
  }
  return options;
}

}  // namespace pipeplan::cli
