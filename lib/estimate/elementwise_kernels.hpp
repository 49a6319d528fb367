#pragma once
// What a layer's norms, rotary embeddings and activations move through memory, per element of
// the tensor they work on, as one fused kernel each or op by op as eager PyTorch runs them
// (docs/costs.md, "Element-wise kernels"). piece_work and moe_work price every such kernel
// from here; the residual adds, the softmax and the dropouts are the same either way and stay
// theirs.
#include "estimate/training.hpp"

namespace pipeplan {

/// Bytes read and written per element of a kernel's input, forward and backward, and the bytes
/// per element the forward keeps for the backward.
struct KernelTraffic {
  double forward = 0;
  double backward = 0;
  double kept = 0;
};

/// A norm over the hidden width: RMSNorm (`rms`) or LayerNorm, its input `element` bytes wide.
[[nodiscard]] KernelTraffic norm_traffic(Elementwise how, bool rms, double element);

/// The rotary embedding of the queries and keys.
[[nodiscard]] KernelTraffic rope_traffic(Elementwise how, double element);

/// The MLP's activation per element of its width: SiLU(gate) x up (`gated`) or GELU. `kept` is
/// what the activation's backward needs: its input (the gate and up projections' outputs when
/// gated), and op by op SiLU's output too; the output, the down projection's input, is the
/// MLP's to keep (piece_work, moe_work).
[[nodiscard]] KernelTraffic activation_traffic(Elementwise how, bool gated, double element);

/// The cross-entropy loss per logit, the logits `element` bytes wide, as each loss's kernels run
/// it: forward and backward (the cast of the fp32 gradient back to the logits' width included).
/// What the losses keep is the same for Megatron's three (piece_work's loss_work).
/// `vocab_sharded`: the logits are split over the tensor-parallel ranks by vocabulary, which
/// changes how torch's loss runs (torch_loss_parallel); Megatron's and TE's are the same either way.
[[nodiscard]] KernelTraffic loss_traffic(Loss how, double element, bool vocab_sharded);

/// Whether torch's cross entropy runs as PyTorch's loss parallelism decomposes it: over logits
/// split by vocabulary, that is under tensor parallelism, where torchtitan enables it by default
/// (`ParallelDims.loss_parallel_enabled`: tp > 1 and not `--training.disable_loss_parallel`).
[[nodiscard]] inline bool torch_loss_parallel(Loss how, int tp) {
  return how == Loss::Torch && tp > 1;
}

}  // namespace pipeplan
