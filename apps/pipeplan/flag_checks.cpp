#include "flag_checks.hpp"

namespace pipeplan::cli {

std::string first_given(const CLI::App& sub, std::span<const char* const> flags) {
  for (const char* flag : flags) {
    if (sub.count(flag) > 0) return flag;
  }
  return "";
}

}  // namespace pipeplan::cli
