#pragma once
// An op is one unit of work of one stage for one micro-batch: F (forward), B (gradient for the
// inputs, which the previous stage waits for), W (gradient for the weights, which nobody waits
// for) or BW (B and W fused, as 1F1B and GPipe run it). FB is a compound op, as DualPipe runs
// it: the forward of one stage and micro-batch overlapped with the fused backward of another
// stage and micro-batch of the same device, timed as one op.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipeplan {

enum class OpKind : std::uint8_t { F, B, W, BW, FB };

inline constexpr int kOpKindCount = 5;

/// "F", "B", "W", "BW" or "FB".
[[nodiscard]] std::string_view kind_name(OpKind kind);

/// The kind named by "F", "B", "W", "BW" or "FB"; nullopt for anything else.
[[nodiscard]] std::optional<OpKind> parse_kind(std::string_view name);

/// True for the ops that produce the gradient the previous stage needs (B and BW).
[[nodiscard]] constexpr bool gives_input_gradient(OpKind kind) {
  return kind == OpKind::B || kind == OpKind::BW;
}

struct Op {
  OpKind kind = OpKind::F;
  int stage = 0;               ///< for FB, the forward's
  int microbatch = 0;          ///< for FB, the forward's
  int overlap_stage = 0;       ///< FB only: the stage of the overlapped fused backward
  int overlap_microbatch = 0;  ///< FB only: its micro-batch

  /// The two parts of an FB: its forward F(stage, microbatch) and its fused backward
  /// BW(overlap_stage, overlap_microbatch).
  [[nodiscard]] Op forward_part() const { return {OpKind::F, stage, microbatch, 0, 0}; }
  [[nodiscard]] Op backward_part() const { return {OpKind::BW, overlap_stage, overlap_microbatch, 0, 0}; }

  friend bool operator==(const Op&, const Op&) = default;
};

/// An FB op: F(stage, microbatch) overlapped with BW(overlap_stage, overlap_microbatch).
[[nodiscard]] constexpr Op overlapped(int stage, int microbatch, int overlap_stage, int overlap_microbatch) {
  return {OpKind::FB, stage, microbatch, overlap_stage, overlap_microbatch};
}

/// A short name for messages, such as "B(s2,m5)" or "FB(s0,m7 & s7,m3)".
[[nodiscard]] std::string describe(const Op& op);

}  // namespace pipeplan
