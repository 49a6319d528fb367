#pragma once
// An op is one unit of work of one stage for one micro-batch: F (forward), B (gradient for the
// inputs, which the previous stage waits for), W (gradient for the weights, which nobody waits
// for) or BW (B and W fused, as 1F1B and GPipe run it).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipeplan {

enum class OpKind : std::uint8_t { F, B, W, BW };

inline constexpr int kOpKindCount = 4;

/// "F", "B", "W" or "BW".
[[nodiscard]] std::string_view kind_name(OpKind kind);

/// The kind named by "F", "B", "W" or "BW"; nullopt for anything else.
[[nodiscard]] std::optional<OpKind> parse_kind(std::string_view name);

/// True for the ops that produce the gradient the previous stage needs (B and BW).
[[nodiscard]] constexpr bool gives_input_gradient(OpKind kind) {
  return kind == OpKind::B || kind == OpKind::BW;
}

struct Op {
  OpKind kind = OpKind::F;
  int stage = 0;
  int microbatch = 0;

  friend bool operator==(const Op&, const Op&) = default;
};

/// A short name for messages, such as "B(s2,m5)".
[[nodiscard]] std::string describe(const Op& op);

}  // namespace pipeplan
