#pragma once
// A flag whose value is one of an enum's names takes its choices and its help from the enum's
// table (model/enum_table.hpp), so the CLI, the parser and the help cannot list different names.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "model/enum_table.hpp"

namespace pipeplan::cli {

/// The table's names as CLI11 choices, matched whatever their case and stored as written in
/// the table (so the table's parser always accepts what the flag kept).
template <class E, std::size_t N>
[[nodiscard]] CLI::IsMember enum_choices_of(const EnumTable<E, N>& table) {
  std::vector<std::string> names;
  for (const EnumName<E>& row : table) names.emplace_back(row.name);
  return CLI::IsMember(names, CLI::ignore_case);
}

/// "a: what a does; b: what b does", for a flag's help.
template <class E, std::size_t N>
[[nodiscard]] std::string enum_help(const EnumTable<E, N>& table) {
  std::string out;
  for (const EnumName<E>& row : table) {
    out += (out.empty() ? "" : "; ") + std::string(row.name) + ": " + std::string(row.description);
  }
  return out;
}

/// "a, b, c": the names alone, for a help that explains them elsewhere.
template <class E, std::size_t N>
[[nodiscard]] std::string enum_list(const EnumTable<E, N>& table) {
  std::string out;
  for (const EnumName<E>& row : table) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

}  // namespace pipeplan::cli
