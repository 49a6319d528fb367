#include "model/op.hpp"

#include <array>

namespace pipeplan {

namespace {
constexpr std::array<std::string_view, kOpKindCount> kNames = {"F", "B", "W", "BW"};
}  // namespace

std::string_view kind_name(OpKind kind) { return kNames.at(static_cast<std::size_t>(kind)); }

std::optional<OpKind> parse_kind(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

std::string describe(const Op& op) {
  return std::string(kind_name(op.kind)) + "(s" + std::to_string(op.stage) + ",m" +
         std::to_string(op.microbatch) + ")";
}

}  // namespace pipeplan
