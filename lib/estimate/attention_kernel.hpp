#pragma once
// The attention core's rate (docs/costs.md, "Work per piece", attention core): the fused kernel's
// measured fractions of the dense peak, forward and backward, each from a benchmark's short runs
// and so kept at the card's sustained share of them (sustained_gemm.hpp), as a training step
// holds every GPU of a node at its power limit.
#include <string>

#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// Fractions of the dense peak, forward and backward.
struct AttentionFractions {
  double forward = 0;
  double backward = 0;
};

/// What `kernel` reaches causal, at head dimension 128 and 16k tokens on an H100 SXM5, of its
/// 989 TFLOP/s (Shah et al. 2024, FlashAttention-3, figures 5 and 6): cuDNN 539 and 516,
/// FlashAttention-2 335 and 322, FlashAttention-3 616 and 561. The same fractions are taken on
/// every card: no comparable measurement of another card's kernels is on record here.
[[nodiscard]] AttentionFractions benchmark_attention_fractions(AttentionKernel kernel);

/// The fraction of the dense peak the core's forward (or backward) reaches: the given
/// `efficiency.attention_forward` (`attention_backward`) when above 0, else
/// `efficiency.attention_kernel`'s benchmark fraction at the card's sustained share of it.
[[nodiscard]] double attention_fraction(const Efficiency& efficiency, const GpuSpec& gpu, bool forward);

/// "0.475,0.457 (cudnn's at the card's sustained clock)", or the given pair as given: for a
/// profile's source line.
[[nodiscard]] std::string attention_efficiency_text(const Efficiency& efficiency, const GpuSpec& gpu);

}  // namespace pipeplan
