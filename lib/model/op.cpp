#include "model/op.hpp"

#include <array>

namespace pipeplan {

namespace {
constexpr std::array<std::string_view, kOpKindCount> kNames = {"F", "B", "W", "BW", "FB"};
}  // namespace

std::string_view kind_name(OpKind kind) {
  return kNames.at(static_cast<std::size_t>(kind));
}

std::optional<OpKind> parse_kind(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

std::string describe(const Op& op) {
  std::string text =
      std::string(kind_name(op.kind)) + "(s" + std::to_string(op.stage) + ",m" + std::to_string(op.microbatch);
  if (op.kind == OpKind::FB) {
    text += " & s" + std::to_string(op.overlap_stage) + ",m" + std::to_string(op.overlap_microbatch);
  }
  return text + ")";
}

}  // namespace pipeplan
