#pragma once
// Tensor parallelism's collectives overlapped with the GEMMs beside them, as Transformer
// Engine's userbuffers run them (Megatron-LM's --tp-comm-overlap; docs/costs.md, "Tensor-parallel
// overlap"). In a ring exchange the products are cut into t chunks of rows and one chunk is
// computed per hop while the next goes round the ring (a gather's first chunk is the rank's
// own; a scatter's last send follows its last chunk), so of the collective's c ms what the other
// t - 1 chunks' g ms do not cover shows: max(0, c - g (t - 1) / t), where g prices the chunks at
// their own shapes (a chunk of m / t rows fills fewer tiles). A bulk overlap runs the collective
// beside the whole products: max(0, c - g), and its kernels hold kBulkOverlapSms of the card's SMs
// while the products run beside them (collective_contention.hpp). A ring exchange's sends run on
// the copy engines (TE's ring exchange takes one SM), so its products keep the card's rate.
#include <vector>

#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_gemms.hpp"

namespace pipeplan {

/// The SMs a userbuffers bulk overlap's kernels hold: Transformer Engine's default for every
/// overlap but the ring exchange (`initialize_ub`'s `"num_sm": 1 if method == "ring_exchange" else
/// 16`, transformer_engine/pytorch/module/base.py).
inline constexpr int kBulkOverlapSms = 16;

struct TpOverlapMs {
  double exposed = 0;  ///< the collectives' milliseconds the products do not cover, and what bulk ones take from them
  double chunked_extra = 0;  ///< what cutting the ring exchanges' products into chunks adds to them
};

/// A phase's `collectives` collectives of `collective_ms` each over `tp` ranks, the first ones
/// beside `spans` of `products` as above, the rest (more collectives than spans) whole. Spans
/// beyond `collectives` are not counted.
[[nodiscard]] TpOverlapMs tp_overlap_ms(int collectives, double collective_ms, const std::vector<OverlapSpan>& spans,
                                        const std::vector<GemmShape>& products, const GpuSpec& gpu,
                                        const Efficiency& efficiency, DType dtype, int tp);

/// What PyTorch's fused ops (`--tp-overlap-method async-tp`) move on the compute stream beside
/// their products, in bytes, for the first `collectives` of `spans` over a `tensor_bytes`
/// tensor (the gathered input, the unscattered output) and `tp` ranks, as its symmetric-memory
/// ops run them (torch/distributed/_symmetric_memory/__init__.py, late 2024): a fused gather
/// copies the rank's own shard into the gathered tensor (`_pipelined_all_gather_and_consume`:
/// 2 / t of it, read and written); a fused scatter computes every rank's partial rows into one
/// stacked tensor, pulls its own, then sums the t partials in a reduction kernel
/// (`_fused_matmul_reduce_scatter_impl`: the whole read, 1 / t written), where NCCL's
/// reduce-scatter reduces inside its own kernel. Under async TP every span is one of its fused
/// ops (the collectives it leaves unfused have none: async_tp_scatters_alone, piece_gemms.cpp).
[[nodiscard]] double async_tp_copy_bytes(const std::vector<OverlapSpan>& spans, int collectives, double tensor_bytes,
                                         int tp);

}  // namespace pipeplan
