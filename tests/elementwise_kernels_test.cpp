#include <doctest/doctest.h>

#include "estimate/elementwise_kernels.hpp"

using namespace pipeplan;

// Every number is counted op by op from torchtitan's modules at 9dec370 (docs/costs.md,
// "Element-wise kernels"): bf16, e = 2, so a cast between bf16 and fp32 reads 2 and writes 4.

TEST_CASE("a fused norm reads and writes its tensor once each way and keeps its input") {
  const KernelTraffic rms = norm_traffic(Elementwise::Fused, true, 2);
  CHECK(rms.forward == 4);   // read x, write y
  CHECK(rms.backward == 6);  // read x and dy, write dx
  CHECK(rms.kept == 2);      // x
  // LayerNorm is one native kernel eagerly too, and eager-fused-norm's norms are fused.
  const KernelTraffic layer = norm_traffic(Elementwise::Eager, false, 2);
  CHECK(layer.forward == 4);
  CHECK(layer.backward == 6);
  const KernelTraffic triton = norm_traffic(Elementwise::EagerFusedNorm, true, 2);
  CHECK(triton.forward == 4);
  CHECK(triton.kept == 2);
}

TEST_CASE("eager RMSNorm: the fp32 copies, pow, mean, two products and autograd's gradients") {
  const KernelTraffic bf16 = norm_traffic(Elementwise::Eager, true, 2);
  // float 6, pow 8, mean 4, x * rsqrt 8, type_as 6, * weight 4.
  CHECK(bf16.forward == 36);
  // * weight's two gradients 4 + 8, type_as's 6, x * rsqrt's 8 + 16, mean's 4, pow's 8 + 8 + 12,
  // the two gradients of x32 added 12, float's 6.
  CHECK(bf16.backward == 92);
  CHECK(bf16.kept == 6);  // x32 (4) and the bf16 normalised tensor (2)
  // Under fp32 the casts return their input: no traffic, and x32 is x.
  const KernelTraffic fp32 = norm_traffic(Elementwise::Eager, true, 4);
  CHECK(fp32.forward == 8 + 4 + 8 + 8);
  CHECK(fp32.backward == 24 + 24 + 4 + 28 + 12);
  CHECK(fp32.kept == 8);
}

TEST_CASE("eager RoPE turns the queries and keys in fp32 between two casts") {
  const KernelTraffic fused = rope_traffic(Elementwise::Fused, 2);
  CHECK(fused.forward == 4);
  CHECK(fused.backward == 4);
  const KernelTraffic eager = rope_traffic(Elementwise::Eager, 2);
  CHECK(eager.forward == 6 + 8 + 6);  // float, the complex product, type_as
  CHECK(eager.backward == 20);        // the conjugate product between the casts' gradients
  CHECK(eager.kept == 0);
  CHECK(rope_traffic(Elementwise::EagerFusedNorm, 2).forward == 20);
  // fp32: no casts, the product alone, as a fused kernel's read and write.
  CHECK(rope_traffic(Elementwise::Eager, 4).forward == 8);
}

TEST_CASE("eager SwiGLU runs SiLU and the product apart, GELU is one kernel either way") {
  const KernelTraffic fused = activation_traffic(Elementwise::Fused, true, 2);
  CHECK(fused.forward == 6);    // read gate and up, write the product
  CHECK(fused.backward == 10);  // read gate, up and the gradient, write two
  CHECK(fused.kept == 4);       // its input, gate and up (Megatron-LM's SwiGLUFunction)
  const KernelTraffic eager = activation_traffic(Elementwise::Eager, true, 2);
  CHECK(eager.forward == 4 + 6);       // SiLU, then the product
  CHECK(eager.backward == 6 + 6 + 6);  // the product's two gradients, SiLU's
  CHECK(eager.kept == 6);              // SiLU's input (the gate), its output and up
  CHECK(activation_traffic(Elementwise::EagerFusedNorm, true, 2).backward == 18);
  const KernelTraffic gelu = activation_traffic(Elementwise::Eager, false, 2);
  CHECK(gelu.forward == 4);
  CHECK(gelu.backward == 6);
  CHECK(gelu.kept == 2);  // its input
}

TEST_CASE("the loss's kernels: Megatron's op by op, fused, TE's two passes, torch's log-softmax") {
  // Bytes per logit, 16-bit logits, counted op by op from each implementation (elementwise_kernels.cpp).
  // Megatron-LM unfused: the fp32 copy (2 + 4), max (4), subtract, exp and divide in place (8
  // each), sum (4); back the product in place (8) and the cast back (4 + 2).
  const KernelTraffic unfused = loss_traffic(Loss::VocabParallel, 2, false);
  CHECK(unfused.forward == 6 + 4 + 8 + 8 + 4 + 8);
  CHECK(unfused.backward == 8 + 6);
  // --cross-entropy-loss-fusion: three kernels (6, 8, 8), one back (read 4, write 4 and 2).
  const KernelTraffic fused = loss_traffic(Loss::VocabParallelFused, 2, false);
  CHECK(fused.forward == 22);
  CHECK(fused.backward == 10);
  // TE: two reads of the logits and the fp32 gradient written (2 + 2 + 4); back 8 + 6.
  const KernelTraffic te = loss_traffic(Loss::TransformerEngine, 2, false);
  CHECK(te.forward == 8);
  CHECK(te.backward == 14);
  // torch: the copy (6), log_softmax (8); back nll's gradient (4), log_softmax's (12), the cast (6).
  const KernelTraffic torch_loss = loss_traffic(Loss::Torch, 2, false);
  CHECK(torch_loss.forward == 14);
  CHECK(torch_loss.backward == 22);
  // torch's under loss parallelism (the logits split by vocabulary, torchtitan's tp > 1),
  // torch/distributed/tensor/parallel/loss.py op by op: the copy (6), max (4), x - max (8), exp
  // (8), sum (4), shifted - logsumexp (8); back zeros (4), exp of the kept output (8), the sum
  // (12), the product (8), the cast (6). Megatron's and TE's do not change with the split.
  const KernelTraffic torch_parallel = loss_traffic(Loss::Torch, 2, true);
  CHECK(torch_parallel.forward == 6 + 4 + 8 + 8 + 4 + 8);
  CHECK(torch_parallel.backward == 4 + 8 + 12 + 8 + 6);
  CHECK(loss_traffic(Loss::VocabParallel, 2, true).forward == unfused.forward);
  CHECK(loss_traffic(Loss::TransformerEngine, 2, true).backward == te.backward);
  CHECK(torch_loss_parallel(Loss::Torch, 2));
  CHECK_FALSE(torch_loss_parallel(Loss::Torch, 1));
  CHECK_FALSE(torch_loss_parallel(Loss::VocabParallel, 8));
  // fp32 logits: .float() returns them, no copy and no cast back.
  CHECK(loss_traffic(Loss::VocabParallel, 4, false).forward == 32);
  CHECK(loss_traffic(Loss::VocabParallel, 4, false).backward == 8);
  CHECK(loss_traffic(Loss::VocabParallelFused, 4, false).forward == 4 + 16);
  // The fused one is lighter than the unfused, TE's lighter still in F.
  CHECK(te.forward < fused.forward);
  CHECK(fused.forward < unfused.forward);
}
