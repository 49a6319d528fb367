#include "flag_checks.hpp"

#include <fmt/format.h>

#include "model/finite.hpp"

namespace pipeplan::cli {

std::string first_given(const CLI::App& sub, std::span<const char* const> flags) {
  for (const char* flag : flags) {
    if (sub.count(flag) > 0) return flag;
  }
  return "";
}

CLI::Validator finite_range(double least, double most) {
  const std::string expected = fmt::format("a number from {} to {}", least, most);
  return CLI::Validator(
      [least, most, expected](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !finite_within(value, least, most)) {
          return "expected " + expected + ", got '" + text + "'";
        }
        return "";
      },
      fmt::format("NUMBER in [{} - {}]", least, most));
}

}  // namespace pipeplan::cli
