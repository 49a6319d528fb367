#pragma once
// Names the user types (schedules, GPUs, formats) match whatever their case: `--gpu H100` means
// h100. Only ASCII folds; every name of ours is ASCII.
#include <string>
#include <string_view>

namespace pipeplan {

[[nodiscard]] constexpr char fold_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// True when `a` and `b` are the same name but for ASCII case.
[[nodiscard]] constexpr bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold_char(a[i]) != fold_char(b[i])) return false;
  }
  return true;
}

/// `name` in lower case, for the tables that look names up by equality.
[[nodiscard]] inline std::string folded(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = fold_char(c);
  return out;
}

}  // namespace pipeplan
