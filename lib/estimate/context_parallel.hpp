#pragma once
// Context parallelism as Megatron-LM's ring attention runs it (docs/costs.md, "Context
// parallelism"): each sequence is cut into 2·cp chunks and context-parallel rank i holds chunks i
// and 2cp-1-i, so that every rank has the same share of the causal scores. Every token-wise piece
// of work then runs on s/cp tokens of each sequence; the attention core needs every earlier
// token's K and V, which travel around the ring of cp ranks in cp - 1 steps, each step's transfer
// under the attention of the chunk already there.
#include <cstdint>

#include "estimate/gpu_catalog.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// Throws Error naming --cp when the settings cannot be split: cp below 1, a sequence not
/// divisible by 2·cp (the two load-balancing chunks of each rank), or cp > 1 without flash
/// attention (Megatron's ring runs in Transformer Engine's fused attention, which keeps no scores).
void check_context_parallel(const TrainingSettings& training);

/// Tokens of one micro-batch on one context-parallel rank: s·b / cp.
[[nodiscard]] std::int64_t context_tokens(const TrainingSettings& training);

/// The share of a sequence's whole causal attention core one context-parallel rank computes:
/// 1 / cp, the load-balanced chunks giving every rank the same.
[[nodiscard]] double context_core_share(const TrainingSettings& training);

/// One layer's ring on one rank: what each step sends and the attention it hides under.
struct ContextRing {
  int steps = 0;               ///< cp - 1 transfers a ring makes (0 without context parallelism)
  double kv_bytes = 0;         ///< this rank's K and V (its s/cp tokens, its heads): what one forward step sends
  double f_core_flops = 0;     ///< the forward's attention core on this rank, over all cp steps
  double b_core_flops = 0;     ///< the backward's (its recompute of Q·K^T included)
  bool forward_again = false;  ///< full recompute: the backward runs the forward's ring once more
  /// Element-wise bytes the ring adds on this rank: F merges each later step's partial output
  /// into the running one (read both, write one: Transformer Engine's output correction), B adds
  /// each step's dQ, dK and dV into fp32 accumulators (read and write 4 bytes an element).
  double merge_f_bytes = 0, merge_b_bytes = 0;
};

/// The ring of a layer whose queries are `q_width` and K and V together `kv_width` elements a
/// token over all heads (h and 2·hk for grouped-query attention), divided over tp ranks, with the
/// attention core's per-rank FLOPs.
[[nodiscard]] ContextRing context_ring(const TrainingSettings& training, double q_width, double kv_width,
                                       double f_core_flops, double b_core_flops);

/// What of the ring's transfers the layer's F and B wait for, in milliseconds, given the time of
/// its attention core (`f_core_ms`, `b_core_ms`, all cp steps). The cp steps of attention take
/// equal time (the load balance); each of the cp - 1 transfers runs beside one step's attention,
/// and only what outlasts it shows: F waits (cp - 1)·max(0, send(kv) - f_core/cp); B sends K, V
/// and their gradients, (cp - 1)·max(0, send(2 kv) - b_core/cp), plus F's again under full recompute.
struct RingMs {
  double f_ms = 0, b_ms = 0;
};
[[nodiscard]] RingMs ring_exposed_ms(const ContextRing& ring, double f_core_ms, double b_core_ms, const LinkSpec& link);

}  // namespace pipeplan
