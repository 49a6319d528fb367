#include <doctest/doctest.h>

#include "estimate/layer_kinds.hpp"
#include "estimate/model_config.hpp"
#include "estimate/piece_work.hpp"
#include "io/model_config_json.hpp"
#include "model/error.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// h = 64, a = 4 heads, 2 key-value heads (hk = 32), f = 128, V = 100; s = 16, b = 2 (T = 32),
// bf16 (e = 2), no flash attention. Every expected number below is derived in its comment.
TrainingSettings tiny_training() {
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  t.dtype = DType::BF16;
  t.flash_attention = false;
  return t;
}

ModelConfig tiny_llama() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
}

}  // namespace

TEST_CASE("a Llama layer's FLOPs, bytes and parameters, derived by hand") {
  const PieceWork w = layer_work(tiny_llama(), tiny_training());
  // GEMMs: QKV 2Th(h+2hk) = 2*32*64*128 = 524288; output 2Th^2 = 262144; gate, up, down
  // 6Thf = 1572864; together 2359296. Attention core 4bs^2h = 4*2*256*64 = 131072.
  CHECK(w.f_flops == 2'359'296.0 + 131'072.0);
  CHECK(w.b_flops == 2'359'296.0 + 2 * 131'072.0);  // the core's backward is twice its forward
  CHECK(w.w_flops == 2'359'296.0);
  CHECK(w.model_flops() == w.f_flops + w.b_flops + w.w_flops);
  // a_F: norm inputs 2The = 8192, linear inputs 3The = 12288, Q K V T(h+2hk)e = 8192, the
  // fused SwiGLU's input, gate and up, 2Tfe, and its product (the down projection's input) Tfe:
  // 3Tfe = 24576 (Megatron-LM's SwiGLUFunction saves only its input); the softmax output
  // a*b*s^2*e = 4096.
  CHECK(w.activation_bytes == 8192 + 12288 + 8192 + 24576 + 4096);
  // a_W: inputs of the linear layers T(3h + f)e plus the gradients at their outputs
  // T(3h + 2hk + 2f)e = Te(6h + 2hk + 3f) = 64 * 832.
  CHECK(w.w_activation_bytes == 53'248);
  // Element-wise: norms 4The = 16384, residuals 6The = 24576, SwiGLU 3Tfe = 24576, RoPE
  // 2T(h+hk)e = 12288, softmax 2*a*b*s^2*e = 8192.
  CHECK(w.f_bytes == 86'016.0);
  // Backward, each kernel's own traffic: norms read x and dy and write dx, 6The = 24576;
  // residuals 6The = 24576; SwiGLU reads gate, up and the gradient and writes two, 5Tfe = 40960;
  // RoPE 12288; softmax reads P and dP and writes dS, 3*a*b*s^2*e = 12288.
  CHECK(w.b_bytes == 114'688.0);
  // Parameters: h(h+2hk) + h^2 + 3hf + 2h (two RMSNorm weights) = 8192 + 4096 + 24576 + 128.
  CHECK(w.params == 36'992);
}

TEST_CASE("eager element-wise kernels: the layer's norms, RoPE and SwiGLU op by op") {
  // Per element at bf16 (elementwise_kernels_test): RMSNorm 36 and 92 bytes against 4 and 6, and
  // keeps 6 against 2; RoPE 20 each way against 4; SwiGLU 10 and 18 against 6 and 10. The tiny
  // layer has T = 32, two norms of h = 64, RoPE over h + hk = 96, f = 128.
  TrainingSettings t = tiny_training();
  const PieceWork fused = layer_work(tiny_llama(), t);
  t.elementwise = Elementwise::Eager;
  const PieceWork eager = layer_work(tiny_llama(), t);
  // F: 32 * (2*64*32 + 96*16 + 128*4) = 32 * 6144.
  CHECK(eager.f_bytes - fused.f_bytes == 196'608.0);
  // B: 32 * (2*64*86 + 96*16 + 128*8) = 32 * 13568.
  CHECK(eager.b_bytes - fused.b_bytes == 434'176.0);
  // Each norm keeps its fp32 input and bf16 output where the fused one keeps its input, 2 * 32 *
  // 64 * 4, and SwiGLU SiLU's output beside its input, 32 * 128 * 2.
  CHECK(eager.activation_bytes - fused.activation_bytes == 16'384 + 8192);
  CHECK(eager.f_flops == fused.f_flops);
  // eager-fused-norm: RoPE and SwiGLU alone, F 32 * (1536 + 512), B 32 * (1536 + 1024).
  t.elementwise = Elementwise::EagerFusedNorm;
  const PieceWork triton = layer_work(tiny_llama(), t);
  CHECK(triton.f_bytes - fused.f_bytes == 65'536.0);
  CHECK(triton.b_bytes - fused.b_bytes == 81'920.0);
  CHECK(triton.activation_bytes == fused.activation_bytes + 8192);  // SiLU's output
  // Full recompute runs the eager forward again in B.
  t.recompute = Recompute::Full;
  t.elementwise = Elementwise::Fused;
  const PieceWork fused_full = layer_work(tiny_llama(), t);
  t.elementwise = Elementwise::Eager;
  const PieceWork eager_full = layer_work(tiny_llama(), t);
  CHECK(eager_full.b_bytes - fused_full.b_bytes == 434'176.0 + 196'608.0);
  CHECK(eager_full.activation_bytes == fused_full.activation_bytes);  // the layer's input alone
}

TEST_CASE("Qwen3's query and key norms: a norm's traffic and what it keeps, over every head") {
  // The tiny layer's 4 query heads and 2 key-value heads of 16: 64 + 32 = 96 elements a token.
  ModelConfig m = tiny_llama();
  const PieceWork plain = layer_work(m, tiny_training());
  m.qk_norm = true;
  const PieceWork normed = layer_work(m, tiny_training());
  CHECK(normed.f_bytes - plain.f_bytes == 4.0 * 32 * 96);  // read and write, bf16
  CHECK(normed.b_bytes - plain.b_bytes == 6.0 * 32 * 96);  // read x and dy, write dx
  CHECK(normed.activation_bytes - plain.activation_bytes == 2 * 32 * 96);
  CHECK(normed.params - plain.params == 2 * 16);  // a weight per head width, for Q and for K
}

TEST_CASE("flash attention and recompute change what the layer keeps and redoes") {
  TrainingSettings t = tiny_training();
  t.flash_attention = true;
  PieceWork flash = layer_work(tiny_llama(), t);
  // flash's backward recomputes Q K^T; at s = 16 the one 128-wide block on the causal diagonal
  // is computed whole, so the core is the full 131072 FLOPs.
  CHECK(flash.b_flops == 2'359'296.0 + 2.5 * 131'072.0);
  CHECK(flash.activation_bytes == 57'344 - 4096 + 4 * 2 * 16 * 4);  // no scores; fp32 log-sum-exp a*b*s
  t.flash_attention = false;
  t.recompute = Recompute::Selective;
  PieceWork selective = layer_work(tiny_llama(), t);
  CHECK(selective.activation_bytes == 57'344 - 4096);
  CHECK(selective.b_flops == 2'359'296.0 + 3 * 131'072.0);  // the core forward runs again
  CHECK(selective.recompute_flops == 131'072.0);
  CHECK(selective.model_flops() == layer_work(tiny_llama(), tiny_training()).model_flops());
  // B makes the scores again (a·b·s²·e = 4 x 2 x 256 x 2 = 4096 bytes) and holds them while it runs.
  CHECK(selective.b_workspace_bytes == 4096);
  CHECK(layer_work(tiny_llama(), tiny_training()).b_workspace_bytes == 0);  // nothing to make again
  t.recompute = Recompute::Full;
  PieceWork full = layer_work(tiny_llama(), t);
  CHECK(full.activation_bytes == 32 * 64 * 2);            // the layer's input only
  CHECK(full.b_workspace_bytes == 57'344 - 32 * 64 * 2);  // the rest of what F would keep, made again
  CHECK(full.w_activation_bytes == 0);                    // W runs inside B
  CHECK(full.w_flops == 0);
  CHECK(full.b_flops == 2'621'440.0 + 2'490'368.0 + 2'359'296.0);  // B + the forward again + W
}

TEST_CASE("torchtitan's checkpointing by op keeps wq's, wv's, w1's and w2's outputs and flash attention's") {
  // parallelize_llama.py's policy at 9dec370 saves every odd aten.mm of the block, in model.py's
  // order wq, wk, wv, wo, w1, w3, w2: wq (q = 64), wv (kv = 32), w1 (f = 128), w2 (h = 64), 288
  // elements a token; with the layer's input (64), attention's output (64) and its fp32
  // log-sum-exp (4 a = 16 bytes a token): T = 32 tokens x (2 x 416 + 16) = 27136 bytes.
  TrainingSettings t = tiny_training();
  t.flash_attention = true;
  const PieceWork none = layer_work(tiny_llama(), t);
  t.recompute = Recompute::Ops;
  const PieceWork ops = layer_work(tiny_llama(), t);
  CHECK(ops.activation_bytes == 27136);
  // B runs wk, wo and w3 again: 2T(h kv + q h + h f) = 2 x 32 x (2048 + 4096 + 8192) = 917504
  // FLOPs, every element-wise kernel of F again, and W inside it.
  CHECK(ops.recompute_flops == 917'504.0);
  CHECK(ops.b_flops == none.b_flops + 917'504.0 + none.w_flops);
  CHECK(ops.b_bytes == none.b_bytes + none.f_bytes);
  CHECK(ops.w_flops == 0);
  CHECK(ops.w_activation_bytes == 0);
  CHECK(ops.b_workspace_bytes == none.activation_bytes - 27136);  // what B makes again
  CHECK(ops.model_flops() == none.model_flops());
  t.tp = 2;  // its gathers run again, its scatters' outputs are saved
  CHECK(layer_work(tiny_llama(), t).b_collectives == 6);
  // Only torchtitan's Llama block has the policy.
  CHECK_THROWS_WITH_AS((void)layer_work(read_model_config_file(PIPEPLAN_TEST_DATA "/models/deepseek-v3.json"), t),
                       doctest::Contains("latent attention"), Error);
  const ModelConfig moe = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-qwen-moe.json");
  CHECK_THROWS_WITH_AS((void)layer_work(moe, t, layer_kind(moe, moe.layers - 1)), doctest::Contains("expert layers"),
                       Error);
  t.flash_attention = false;
  CHECK_THROWS_WITH_AS((void)layer_work(tiny_llama(), t), doctest::Contains("--flash-attention"), Error);
}

TEST_CASE("GPT activations follow Korthikanti et al. 2022: 34sbh + 5as^2b bytes, divided by t") {
  // Table 2 of "Reducing Activation Recomputation in Large Transformer Models": without
  // parallelism sbh(34 + 5as/h); with tensor and sequence parallelism the same over t; with
  // selective recompute 34sbh/t. Here s = 16, b = 2, h = 64, a = 4: 69632 + 10240 bytes.
  const ModelConfig gpt = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-gpt.json");
  TrainingSettings t = tiny_training();
  CHECK(layer_work(gpt, t).activation_bytes == 34 * 16 * 2 * 64 + 5 * 4 * 16 * 16 * 2);
  t.tp = 2;
  CHECK(layer_work(gpt, t).activation_bytes == (34 * 16 * 2 * 64 + 5 * 4 * 16 * 16 * 2) / 2);
  t.recompute = Recompute::Selective;
  CHECK(layer_work(gpt, t).activation_bytes == 34 * 16 * 2 * 64 / 2);
  // W's share for GPT: Te(6h + 2h + 2*4h) = 32sbh at 16 bits (docs/costs.md, "a_W").
  t = tiny_training();
  CHECK(layer_work(gpt, t).w_activation_bytes == 32 * 16 * 2 * 64);
}

TEST_CASE("without sequence parallelism the norms, residuals and dropouts are every rank's whole: Table 2's baseline") {
  // Korthikanti et al. 2022, Table 2, "tensor parallel" (no sequence parallelism):
  // sbh(10 + 24/t + 5as/(ht)); selective recompute sbh(10 + 24/t). sbh = 16 x 2 x 64 = 2048 at t = 2:
  // 20480 + 24576 + 5120 = 50176, and 45056.
  const ModelConfig gpt = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-gpt.json");
  TrainingSettings sp = tiny_training();
  sp.tp = 2;
  TrainingSettings whole = sp;
  whole.sequence_parallel = false;
  CHECK(layer_work(gpt, whole).activation_bytes == 50176);
  whole.recompute = Recompute::Selective;
  CHECK(layer_work(gpt, whole).activation_bytes == 45056);
  whole.recompute = Recompute::None;
  // The forward's two norms (read and write), two residual adds (two reads, a write) and two
  // dropouts (read, write, a 1-byte mask) on all T x h: Th(8 + 12 + 10) = 30 x 2048 bytes, of
  // which sequence parallelism ran half here.
  CHECK(layer_work(gpt, whole).f_bytes - layer_work(gpt, sp).f_bytes == doctest::Approx(30 * 2048 / 2.0));
  CHECK(layer_work(gpt, whole).f_flops == layer_work(gpt, sp).f_flops);  // the products are split alike
  whole.tp = 1;                                                          // nothing to replicate on one rank
  sp.tp = 1;
  CHECK(layer_work(gpt, whole).activation_bytes == layer_work(gpt, sp).activation_bytes);
}

TEST_CASE("tensor parallelism splits the work and adds its collectives") {
  TrainingSettings t = tiny_training();
  t.tp = 2;
  const PieceWork w = layer_work(tiny_llama(), t);
  CHECK(w.f_flops == (2'359'296.0 + 131'072.0) / 2);
  CHECK(w.activation_bytes == 57'344 / 2);
  CHECK(w.tp_bytes == 0.5 * 32 * 64 * 2);              // (t-1)/t of one T x h activation
  CHECK(w.f_collectives == 4);                         // two all-gathers, two reduce-scatters
  CHECK(w.params == (8192 + 4096 + 24576) / 2 + 128);  // norms stay whole
  t.tp = 3;
  CHECK(test::error_of([&] { (void)layer_work(tiny_llama(), t); }) ==
        "--tp 3: tensor parallelism must divide the attention heads (4)");
}

TEST_CASE("the embedding and the head, derived by hand") {
  const TrainingSettings t = tiny_training();
  const PieceWork head = head_work(tiny_llama(), t);
  CHECK(head.f_flops == 2.0 * 32 * 64 * 100);  // logits: 2ThV
  CHECK(head.w_flops == head.f_flops);
  CHECK(head.activation_bytes == 2 * 32 * 64 * 2 + 32 * 100 * 4);  // norm and head inputs, fp32 softmax
  CHECK(head.w_activation_bytes == 32 * 64 * 2 + 32 * 100 * 2);    // head input, logits' gradient
  // Megatron's cross entropy: the 16-bit logits beside their fp32 copy in F, the 16-bit gradient
  // beside the fp32 one in B: TVe = 32 x 100 x 2 each.
  CHECK(head.f_workspace_bytes == 6400);
  CHECK(head.b_workspace_bytes == 6400);
  // torch's cross_entropy on an fp32 copy (torchtitan): F holds the 16-bit logits and the copy
  // beside the kept log-softmax, TV(e + 4) = 19200; B two fp32 gradients, 8TV = 25600.
  TrainingSettings titan = t;
  titan.loss = Loss::Torch;
  const PieceWork torch_head = head_work(tiny_llama(), titan);
  CHECK(torch_head.activation_bytes == head.activation_bytes);
  CHECK(torch_head.f_workspace_bytes == 19200);
  CHECK(torch_head.b_workspace_bytes == 25600);
  // Under tensor parallelism torch's loss runs as PyTorch's loss parallelism decomposes it
  // (torch/distributed/tensor/parallel/loss.py): over tp = 2 ranks' TV/2 = 1600 logits each, F
  // holds x - max and its exp beside the copy and the 16-bit logits, TV/2 (e + 8) = 16000; B
  // three fp32 tensors beside the kept log-softmax, 12 TV/2 = 19200; the same log-softmax kept.
  TrainingSettings titan_tp = titan;
  titan_tp.tp = 2;
  const PieceWork parallel_head = head_work(tiny_llama(), titan_tp);
  CHECK(parallel_head.f_workspace_bytes == 16000);
  CHECK(parallel_head.b_workspace_bytes == 19200);
  TrainingSettings megatron_tp = t;
  megatron_tp.tp = 2;
  CHECK(parallel_head.activation_bytes == head_work(tiny_llama(), megatron_tp).activation_bytes);
  // The loss's traffic is its kernels' (elementwise_kernels_test): over TV = 3200 logits, beside
  // the final norm's; Megatron's default, op by op, 38 bytes a logit forward, 14 back.
  // The fused final norm: read and write Th = 2048 elements (4 bytes each forward, 6 back).
  const double norm_f = 2048.0 * 4, norm_b = 2048.0 * 6;
  CHECK(head.f_bytes == doctest::Approx(norm_f + 3200.0 * 38));
  CHECK(head.b_bytes == doctest::Approx(norm_b + 3200.0 * 14));
  TrainingSettings te_loss = t;
  te_loss.loss = Loss::TransformerEngine;
  const PieceWork te_head = head_work(tiny_llama(), te_loss);
  CHECK(te_head.f_bytes == doctest::Approx(norm_f + 3200.0 * 8));
  CHECK(te_head.b_bytes == doctest::Approx(norm_b + 3200.0 * 14));
  CHECK(te_head.activation_bytes == head.activation_bytes);  // Megatron's three keep alike
  CHECK(te_head.f_workspace_bytes == head.f_workspace_bytes);
  CHECK(head.params == 100 * 64 + 64);
  const PieceWork embedding = embedding_work(tiny_llama(), t);
  CHECK(embedding.f_flops == 0);
  CHECK(embedding.b_flops == 0);  // token ids take no gradient
  CHECK(embedding.params == 100 * 64);
}

TEST_CASE("the seed's layer matches docs/model.md's hand estimate") {
  // docs/model.md: Llama-2-7B's layer at s = 2048, b = 1: 828.9 GFLOP of GEMMs, 68.7 of
  // attention core in F.
  TrainingSettings t;
  t.seq = 2048;
  t.dtype = DType::FP32;
  t.flash_attention = false;
  const PieceWork w =
      layer_work(read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-2-7b.json"), t);
  CHECK(w.w_flops == 828'928'688'128.0);
  CHECK(w.f_flops - w.w_flops == 68'719'476'736.0);
}

TEST_CASE("flash attention skips the score blocks above the causal diagonal") {
  // s = 1024: 8 blocks of 128 a side, 36 of the 64 on or below the diagonal, 9/16 of the core.
  // The layer's core 4bs^2h = 4 * 1 * 1024^2 * 64 = 268435456 FLOPs, 150994944 of them run.
  TrainingSettings t;
  t.seq = 1024;
  t.flash_attention = true;
  const double linear = 2.0 * 1024 * 64 * 128 + 2.0 * 1024 * 64 * 64 + 6.0 * 1024 * 64 * 128;
  const PieceWork flash = layer_work(tiny_llama(), t);
  CHECK(flash.f_flops == linear + 150'994'944.0);
  CHECK(flash.b_flops == linear + 2.5 * 150'994'944.0);
  t.flash_attention = false;  // unfused kernels compute every score
  CHECK(layer_work(tiny_llama(), t).f_flops == linear + 268'435'456.0);
}
