#pragma once
// One table per enum of names the user types (--comm, --policy, --optimizer-mode, --dtype, ...):
// {name, value, description}. The library parses and names values with it, the CLI lists its
// choices and help from it, so a new value is added in one place and cannot be missing from one
// of them.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "model/name_fold.hpp"

namespace pipeplan {

template <class E>
struct EnumName {
  std::string_view name;
  E value;
  std::string_view description;
};

template <class E, std::size_t N>
using EnumTable = std::array<EnumName<E>, N>;

/// The name of `value` in `table`; the first entry's when it is not there (each table lists
/// every value of its enum, in the enum's order).
template <class E, std::size_t N>
[[nodiscard]] constexpr std::string_view enum_name(const EnumTable<E, N>& table, E value) {
  for (const EnumName<E>& row : table) {
    if (row.value == value) return row.name;
  }
  return table.front().name;
}

/// The value named `name`, whatever its ASCII case; nullopt for other names.
template <class E, std::size_t N>
[[nodiscard]] constexpr std::optional<E> enum_named(const EnumTable<E, N>& table, std::string_view name) {
  for (const EnumName<E>& row : table) {
    if (same_name(row.name, name)) return row.value;
  }
  return std::nullopt;
}

/// "a, b or c": the names for an error message that says what was expected.
template <class E, std::size_t N>
[[nodiscard]] std::string enum_choices(const EnumTable<E, N>& table) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += table[i].name;
  }
  return out;
}

}  // namespace pipeplan
