#include "estimate/elementwise_kernels.hpp"

#include <algorithm>

namespace pipeplan {

namespace {

// An fp32 element: what eager RMSNorm and RoPE compute in.
constexpr double kFloat = 4;

// x.float() or y.type_as(x) on a 16-bit tensor, and either's gradient back: read one width,
// write the other. On an fp32 tensor both return it unchanged.
double cast(double element) {
  return element == kFloat ? 0.0 : element + kFloat;
}

}  // namespace

KernelTraffic norm_traffic(Elementwise how, bool rms, double e) {
  // Fused (eager-fused-norm's norms too): read x, write y; back, read x and dy, write dx; keep
  // x. torch's layer_norm is one native kernel each way eagerly too.
  if (how != Elementwise::Eager || !rms) return {2 * e, 3 * e, e};
  // torchtitan's RMSNorm (torchtitan/models/norms.py at 9dec370): x32 = x.float(); r =
  // rsqrt(x32.pow(2).mean(-1) + eps); y = (x32 * r).type_as(x); out = y * weight, each op its
  // own kernel. Forward: the cast, pow (read and write 4), mean (read 4; one value a row), x32 * r
  // (read and write 4), the cast back, the weight's product (read and write e).
  const double forward = cast(e) + 2 * kFloat + kFloat + 2 * kFloat + cast(e) + 2 * e;
  // Backward, by autograd's formulas: the weight's product gives dy = dout * weight (2e) and
  // dweight = sum(dout * y) (the product 3e, its reduction over the tokens e); the cast back;
  // x32 * r gives dout32 * r (8) and sum(dout32 * x32) for r (the product 12, its reduction 4);
  // mean's gradient is expanded and divided (write 4); pow's is grad * (2 * x32.pow(1)) (a copy
  // 8, the scaling 8, the product 12); x32's two gradients are added (12); the cast.
  const double backward = 6 * e + cast(e) + 24 + kFloat + 28 + 3 * kFloat + cast(e);
  // Autograd keeps x32 (pow's and the product's input) and y (the weight product's), not x.
  return {forward, backward, kFloat + e};
}

KernelTraffic rope_traffic(Elementwise how, double e) {
  if (how == Elementwise::Fused) return {2 * e, 2 * e, 0};  // read, write; its gradient alike
  // torchtitan's apply_rotary_emb (torchtitan/models/llama/model.py at 9dec370): the queries and
  // keys cast to fp32, viewed as complex pairs, multiplied by the broadcast frequencies (read and
  // write 4 an element) and cast back; the backward multiplies by their conjugates between the
  // two casts' gradients. It keeps only the frequencies, one table for every layer.
  const double turn = cast(e) + 2 * kFloat + cast(e);
  return {turn, turn, 0};
}

KernelTraffic activation_traffic(Elementwise how, bool gated, double e) {
  // GELU is one native kernel eagerly too: read 1 write 1, back read 2 write 1; it keeps its input.
  if (!gated) return {2 * e, 3 * e, e};
  // Fused SwiGLU: read gate and up, write the product; back, read both and the gradient, write
  // two. It keeps its input, gate and up (Megatron-LM's SwiGLUFunction saves only that tensor).
  if (how == Elementwise::Fused) return {3 * e, 5 * e, 2 * e};
  // torchtitan's FeedForward, w2(F.silu(w1(x)) * w3(x)): SiLU (read 1 write 1), then the product
  // (read 2 write 1); back, the product's two gradients (read 2 write 1 each) and SiLU's (read 2
  // write 1). Autograd keeps SiLU's input (the gate) and the product's two (SiLU's output, up).
  return {5 * e, 9 * e, 3 * e};
}

KernelTraffic loss_traffic(Loss how, double e, bool vocab_sharded) {
  switch (how) {
    case Loss::VocabParallel:
      // megatron/core/tensor_parallel/cross_entropy.py at d98e8a64, each op its own kernel: the
      // fp32 copy, the row max (read 4), the max taken off in place (read and write 4), exp in
      // place, the row sum (read 4), the division in place. Back: the product with the loss's
      // gradient in place, then autograd's cast of the gradient back to the logits' width.
      return {cast(e) + 4 + 8 + 8 + 4 + 8, 8 + cast(e), 0};
    case Loss::VocabParallelFused:
      // megatron/core/fusions/fused_cross_entropy.py at d98e8a64: the same ops in three
      // jit-fused kernels forward (the copy with its max; the subtraction, exp and sum in place;
      // the division in place) and one back, which writes the gradient in place and as bf16.
      return {std::max(cast(e), kFloat) + 8 + 8, 4 + 4 + 2, 0};  // fp32: no copy, the max's read
    case Loss::TransformerEngine:
      // transformer_engine/pytorch/triton/cross_entropy.py at d0067d0: an online softmax over the
      // 16-bit logits, then a second pass that writes the loss and the fp32 gradient; back, that
      // gradient times the per-token loss gradient in place (Megatron passes unreduced losses,
      // so the product runs), and autograd's cast back.
      return {2 * e + 4, 8 + cast(e), 0};
    case Loss::Torch:
      if (vocab_sharded) {
        // PyTorch's loss parallelism (torch/distributed/tensor/parallel/loss.py, _log_softmax and
        // _nll_loss_and_log_softmax_backward) runs log_softmax op by op: the fp32 copy, the row
        // max (read 4), x - max (read 4, write 4), exp (8), the row sum (4), shifted - logsumexp
        // (8); back, the gradient made as zeros (write 4), exp of the kept output (8), their sum
        // (read 8, write 4), its product with the per-token gradient (8), the cast back.
        return {cast(e) + 4 + 8 + 8 + 4 + 8, 4 + 8 + 12 + 8 + cast(e), 0};
      }
      // torchtitan's cross_entropy(pred.float(), labels): the fp32 copy, log_softmax (read and
      // write 4); back, nll_loss's gradient made anew (write 4), log_softmax's backward (read the
      // gradient and the kept output, write 4), the cast back.
      return {cast(e) + 8, 4 + 12 + cast(e), 0};
  }
  return {};
}

}  // namespace pipeplan
