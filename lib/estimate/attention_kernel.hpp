#pragma once
// The attention core's rate (docs/costs.md, "Work per piece", attention core): the fused kernel's
// measured fractions of the dense peak, forward and backward, by head dimension and sequence
// length, each from a benchmark's short runs and so kept at the card's sustained share of them
// (sustained_gemm.hpp), as a training step holds every GPU of a node at its power limit.
#include <string>

#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// What one call of the fused kernel works on: a head's query-key width and the keys a query
/// block reaches (the sequence, a local window, a context-parallel rank's chunk). The defaults are
/// the point the fractions are quoted at (a profile's source line): head dimension 128, 16k keys.
struct AttentionCall {
  double head_dim = 128;
  double span = 16384;
  /// What the unfused core's batched products span (unfused_attention.hpp): the value heads'
  /// width, the queries (and keys) of the whole sequence, and the heads of a micro-batch a rank
  /// multiplies at once (micro-batch x heads / tp).
  double value_dim = 128;
  double queries = 16384;
  double batch = 1;
};

/// The score block flash attention computes whole (Dao 2023, section 3.1.1), along queries and keys.
inline constexpr double kFlashBlock = 128;

/// The share of the s x s score blocks flash attention computes under a causal mask: with n
/// blocks along the sequence, the n(n+1)/2 on or below the diagonal.
[[nodiscard]] double causal_block_share(double seq);

/// Fractions of the dense peak, forward and backward.
struct AttentionFractions {
  double forward = 0;
  double backward = 0;
};

/// What `kernel` reaches on an H100 SXM5, of its 989 TFLOP/s (Shah et al. 2024, FlashAttention-3,
/// figure 5's causal forward at head dimensions 64, 128 and 256 and figure 6's backward at 64 and
/// 128, over sequences of 512 to 16k tokens; bf16): interpolated in the head dimension and in the
/// logarithm of the span, each held at the measured range's ends (the backward at 256 as at 128).
/// The same fractions are taken on every card, but for a card's measured ratio to the card
/// whose fractions it takes (GpuSpec::attention_forward_ratio: Blackwell Ultra's to Blackwell's).
[[nodiscard]] AttentionFractions benchmark_attention_fractions(AttentionKernel kernel, const AttentionCall& call);

/// The fraction of the dense peak the core's forward (or backward) reaches for `call`: the given
/// `efficiency.attention_forward` (`attention_backward`) when above 0, else
/// `efficiency.attention_kernel`'s benchmark fraction times the card's attention ratio, at the
/// card's sustained share of it.
[[nodiscard]] double attention_fraction(const Efficiency& efficiency, const GpuSpec& gpu, bool forward,
                                        const AttentionCall& call = {});

/// For a profile's source line: the given pair as given, or the kernel's, "cudnn's by head
/// dimension and length at the card's sustained clock (0.479,0.459 at 128 and 16k)".
[[nodiscard]] std::string attention_efficiency_text(const Efficiency& efficiency, const GpuSpec& gpu);

}  // namespace pipeplan
