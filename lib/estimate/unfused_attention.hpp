#pragma once
// The attention core without flash attention (`--no-flash-attention`; docs/costs.md, "Work per
// piece", attention core): cuBLAS's batched products over the whole s x s scores, Q K^T and the
// product with V forward, four backward, each priced by its shape as every other matrix product
// is (gemm_efficiency.hpp). Two of them run their K loop over a head's width only (Q K^T and the
// scores' gradient, dO V^T), and the other four produce a head's width of columns.
#include "estimate/attention_kernel.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// Milliseconds for `forward` FLOPs of the unfused core's forward products and `backward` FLOPs
/// of its backward ones, each at the FLOP-weighted rate its products' shapes keep (`call`'s head
/// widths, its `queries` for both sides of the scores, its `batch` of heads).
[[nodiscard]] double unfused_attention_ms(double forward, double backward, const AttentionCall& call,
                                          const GpuSpec& gpu, const Efficiency& efficiency, DType dtype);

}  // namespace pipeplan
