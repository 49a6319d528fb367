// The attention core's rate (docs/costs.md, "Work per piece", attention core): flash attention's
// fused kernel at its measured fractions of the peak, forward and backward, by head dimension and
// sequence length, kept at the card's sustained share of the benchmark's clock; a recomputed
// forward at the forward's; unfused, cuBLAS's products at their shapes' rates.
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/attention_kernel.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/sustained_gemm.hpp"
#include "estimate/unfused_attention.hpp"
#include "io/model_config_json.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig llama70b() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-3-70b.json");
}

// The core's FLOPs of one Llama-3-70B layer over 2048 tokens (h 8192): 4 x 2048^2 x 8192, of which
// flash attention computes 17/32 (16 blocks of 128 on a side: 136 of 256 on or below the diagonal).
constexpr double kCore = 4.0 * 2048 * 2048 * 8192 * 17 / 32;
constexpr double kPeak = 989.4e12;  // the h100 row's bf16 peak
// cuDNN at Llama-3-70B's head dimension 128 and 2k tokens: 484 TFLOP/s causal forward and 465
// backward of the H100's 989 (FlashAttention-3, figures 5 and 6), at the H100's sustained share
// of the benchmark's rate: its power-saturated GEMM rate over its burst one, 698.6 / 794.5
// TFLOP/s (gpu_catalog.cpp).
constexpr double kSustained = 698.6 / 794.5;
// The paper counts a causal core as half the scores (flash-attn's benchmark_attn.py); the kernel
// computed the 136 blocks of 256 that kCore counts, 17/16 of that half: per counted FLOP here it
// ran 17/16 of the figure's rate.
constexpr double kBlocks2k = 17.0 / 16;
constexpr double kForward = 484.0 / 989 * kBlocks2k * kSustained;
constexpr double kBackward = 465.0 / 989 * kBlocks2k * kSustained;

PieceParts parts(Recompute recompute, bool flash, const Efficiency& e = {}) {
  TrainingSettings t;
  t.seq = 2048;
  t.recompute = recompute;
  t.flash_attention = flash;
  return piece_parts(layer_work(llama70b(), t), PhaseGemms{}, gpu_named("h100"), e, t);
}

double forward_tflops(AttentionKernel k, double head_dim, double span) {
  return benchmark_attention_fractions(k, {head_dim, span}).forward * 989;
}

double backward_tflops(AttentionKernel k, double head_dim, double span) {
  return benchmark_attention_fractions(k, {head_dim, span}).backward * 989;
}

}  // namespace

TEST_CASE(
    "flash attention's core: cuDNN's forward and backward (2.5 times the FLOPs) at head dimension 128 and 2k "
    "tokens, each at the card's sustained share") {
  const PieceParts p = parts(Recompute::None, true);
  CHECK(p.f.attention == doctest::Approx(kCore / (kPeak * kForward) * 1e3));  // 0.16141 ms
  CHECK(p.f.attention == doctest::Approx(0.16141).epsilon(1e-3));
  CHECK(p.b.attention == doctest::Approx(2.5 * kCore / (kPeak * kBackward) * 1e3));
  CHECK(p.w.attention == 0.0);
}

TEST_CASE("the kernels' measured rates: the FA3 paper's points, between them by log length and head dimension") {
  using K = AttentionKernel;
  // At the measured points: figure 5's causal forward, figure 6's backward (TFLOP/s, H100).
  CHECK(forward_tflops(K::Cudnn, 128, 16384) == doctest::Approx(539));
  CHECK(backward_tflops(K::Cudnn, 128, 16384) == doctest::Approx(516));
  CHECK(forward_tflops(K::Cudnn, 64, 4096) == doctest::Approx(363));
  CHECK(backward_tflops(K::Cudnn, 64, 4096) == doctest::Approx(417));
  CHECK(forward_tflops(K::FlashAttention2, 128, 16384) == doctest::Approx(335));
  CHECK(backward_tflops(K::FlashAttention2, 128, 16384) == doctest::Approx(322));
  CHECK(forward_tflops(K::FlashAttention3, 128, 16384) == doctest::Approx(616));
  CHECK(backward_tflops(K::FlashAttention3, 128, 16384) == doctest::Approx(561));
  CHECK(forward_tflops(K::Cudnn, 256, 512) == doctest::Approx(308));
  // Between lengths, linear in log2: 3000 tokens is 0.5507 of the way from 2k (484) to 4k (518).
  CHECK(forward_tflops(K::Cudnn, 128, 3000) == doctest::Approx(484 + 34 * 0.55075).epsilon(1e-4));
  // Between head dimensions, linear: 96 halfway from 64 to 128 at 4k, (363 + 518) / 2.
  CHECK(forward_tflops(K::Cudnn, 96, 4096) == doctest::Approx(440.5));
  CHECK(backward_tflops(K::Cudnn, 96, 4096) == doctest::Approx((417 + 499) / 2.0));
  // DeepSeek-V3's 192 (128 + 64 rotary): halfway to 256 forward, (518 + 483) / 2; the backward,
  // measured to 128 only, held there.
  CHECK(forward_tflops(K::Cudnn, 192, 4096) == doctest::Approx(500.5));
  CHECK(backward_tflops(K::Cudnn, 192, 4096) == doctest::Approx(499));
  // Outside the measured range, held at its ends: GPT-OSS's 128-token window at 512's, a
  // million-token sequence at 16k's, a head of 32 at 64's.
  CHECK(forward_tflops(K::Cudnn, 64, 128) == doctest::Approx(225));
  CHECK(forward_tflops(K::Cudnn, 128, 1 << 20) == doctest::Approx(539));
  CHECK(forward_tflops(K::Cudnn, 32, 16384) == doctest::Approx(388));
}

TEST_CASE(
    "the figures count a causal core as half the scores, so per block counted the kernel ran (n + 1)/n of their rate") {
  // n blocks of 128 along the span the rate is read at: the diagonal's computed whole
  // (causal_block_share), where the benchmark counts s^2/2. An H100's sustained share aside.
  const GpuSpec& h100 = gpu_named("h100");
  const auto fraction = [&](double head_dim, double span) {
    return attention_fraction({}, h100, true, {head_dim, span}) / sustained_share_of_burst(h100);
  };
  CHECK(causal_block_share(2048) == doctest::Approx(17.0 / 32));
  CHECK(fraction(128, 2048) == doctest::Approx(484.0 / 989 * 17 / 16));
  CHECK(fraction(128, 16384) == doctest::Approx(539.0 / 989 * 129 / 128));
  CHECK(fraction(128, 1 << 20) == doctest::Approx(539.0 / 989 * 129 / 128));  // held at 16k's, as its rate
  // GPT-OSS's 128-token window reads 512's rate, 4 blocks: 5/4 of it per block counted.
  CHECK(fraction(64, 128) == doctest::Approx(225.0 / 989 * 5 / 4));
}

TEST_CASE("a layer's kernel call: its head dimension, and the keys a query reaches") {
  TrainingSettings t;
  t.seq = 8192;
  const ModelConfig llama = llama70b();
  CHECK(layer_work(llama, t).core_call.head_dim == 128);
  CHECK(layer_work(llama, t).core_call.span == 8192);
  // Context parallelism: each ring step attends to a rank's chunk, 8192 / 4.
  t.cp = 4;
  CHECK(layer_work(llama, t).core_call.span == 2048);
  // GPT-OSS: head dimension 64, its sliding-window layers reach 128 keys, the others the sequence.
  t.cp = 1;
  const ModelConfig oss = read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/gpt-oss-120b.json");
  const LayerKinds kinds = layer_kinds(oss);
  REQUIRE(kinds.kinds.size() == 2);
  for (const LayerKind& k : kinds.kinds) {
    const AttentionCall call = layer_work(oss, t, k).core_call;
    CHECK(call.head_dim == 64);
    CHECK(call.span == (k.local ? 128 : 8192));
  }
}

TEST_CASE("--attention-kernel fa2 prices the core at FlashAttention-2's rate, kept at the sustained share") {
  const PieceParts fa2 = parts(Recompute::None, true, {.attention_kernel = AttentionKernel::FlashAttention2});
  // FlashAttention-2 at head dimension 128 and 2k tokens: 298 forward, 291 backward.
  CHECK(fa2.f.attention == doctest::Approx(kCore / (kPeak * 298 / 989 * kBlocks2k * kSustained) * 1e3));
  CHECK(fa2.b.attention == doctest::Approx(2.5 * kCore / (kPeak * 291 / 989 * kBlocks2k * kSustained) * 1e3));
  // Given fractions replace the kernel's.
  const PieceParts given = parts(
      Recompute::None, true,
      {.attention_forward = 0.5, .attention_backward = 0.25, .attention_kernel = AttentionKernel::FlashAttention2});
  CHECK(given.f.attention == doctest::Approx(kCore / (kPeak * 0.5) * 1e3));
}

TEST_CASE("the sustained share is the card's power-saturated GEMM rate over its burst one, 1 where one is missing") {
  CHECK(sustained_share_of_burst(gpu_named("h100")) == doctest::Approx(698.6 / 794.5));
  CHECK(sustained_share_of_burst(gpu_named("h200")) == doctest::Approx(698.6 / 794.5));
  CHECK(sustained_share_of_burst(gpu_named("a100-80gb")) == doctest::Approx(256.5 / 271.2));
  CHECK(sustained_share_of_burst(gpu_named("b200")) == doctest::Approx(1426.4 / 1745.0));
  // The GB200's bf16 rate is the B200's scaled by the chips' bursts (1822 over 1745), so it keeps
  // the B200's share of its burst.
  CHECK(sustained_share_of_burst(gpu_named("gb200")) == doctest::Approx(1426.4 / 1745.0));
  // Blackwell Ultra takes its sibling's pair; no sustained rate cited (the GeForce cards):
  // nothing to keep a share of.
  CHECK(sustained_share_of_burst(gpu_named("b300")) == doctest::Approx(1426.4 / 1745.0));
  CHECK(sustained_share_of_burst(gpu_named("rtx3090")) == 1.0);
  // Given fractions are taken as they are, in the profile's source line too; the default line
  // names the kernel and its fractions at head dimension 128 and 16k tokens (539 and 516, each
  // 129/128 per block-counted FLOP: 128 blocks along the sequence).
  CHECK(attention_fraction({.attention_forward = 0.5}, gpu_named("h100"), true) == 0.5);
  CHECK(attention_fraction({.attention_forward = 0.5}, gpu_named("h100"), false) ==
        doctest::Approx(516.0 / 989 * 129 / 128 * kSustained));
  CHECK(attention_efficiency_text({}, gpu_named("h100")) ==
        "cudnn's by head dimension and length at the card's sustained clock (0.483,0.462 at 128 and 16k)");
  CHECK(attention_efficiency_text({.attention_forward = 0.3, .attention_backward = 0.2}, gpu_named("h100")) ==
        "0.3,0.2");
}

TEST_CASE("a recomputed forward's core runs at the forward's fraction inside B") {
  // Full recompute: B runs F's core again (at the forward's) before its own backward.
  const PieceParts full = parts(Recompute::Full, true);
  CHECK(full.b.attention == doctest::Approx((kCore / kForward + 2.5 * kCore / kBackward) / kPeak * 1e3));
  // Given fractions replace both, each its own phase.
  const PieceParts given = parts(Recompute::Full, true, {.attention_forward = 0.5, .attention_backward = 0.25});
  CHECK(given.f.attention == doctest::Approx(kCore / (kPeak * 0.5) * 1e3));
  CHECK(given.b.attention == doctest::Approx((kCore / 0.5 + 2.5 * kCore / 0.25) / kPeak * 1e3));
}

TEST_CASE("without flash attention the core is cuBLAS's batched products, each at its shape's rate") {
  // Every score computed (no block share): 4 x 2048^2 x 8192 forward, 4 products (2x) backward,
  // as 64 heads of 128 batched (unfused_attention.cpp), priced as gemm_efficiency.cpp prices any
  // product. Q K^T (and dO V^T) make 2048 x 2048 over K = 128: 16 x 16 x 64 = 16384 tiles, 125
  // waves of 132; a tile's fixed 1 us is K0 = 1e-6 x 989.4e12 / 132 / (2 x 128 x 128) = 228.7 of
  // K, so K = 128 keeps (128 / 356.7) / (16384 / 16612.7) of the rate. P V (and dV, dQ, dK)
  // make 2048 x 128 over K = 2048 and read the 2048 x 2048 scores: 604 MB at 0.7 of 3350 GB/s,
  // longer than their FLOPs take, so at the bandwidth.
  const PieceParts p = parts(Recompute::None, false);
  constexpr double whole = 4.0 * 2048 * 2048 * 8192;
  // The h100 row's sustained bf16 GEMM rate, 698.6 of 989 TFLOP/s measured (gpu_catalog.cpp).
  constexpr double gemm = 698.6 / 989.0;
  constexpr double k0 = 1e-6 * kPeak / 132 / (2.0 * 128 * 128);
  const double k_loop = (128 / (128 + k0)) / (16384 / (16384 + k0));
  const double waves = 16384.0 / (125 * 132);
  const double scores_ms = whole / 2 / (kPeak * gemm) / waves / k_loop * 1e3;
  const double values_bytes = 64 * (2.0 * 2048 * 2048 + 2.0 * 2048 * 128 + 2.0 * 2048 * 128);
  const double values_ms = values_bytes / (3350e9 * 0.7) * 1e3;
  CHECK(values_ms > whole / 2 / (kPeak * gemm) * 1e3);  // bandwidth-bound, as said
  CHECK(p.f.attention == doctest::Approx(scores_ms + values_ms));
  CHECK(p.b.attention == doctest::Approx(scores_ms + 3 * values_ms));
  // 2.7 times the large-product rate's 0.197 ms forward.
  CHECK(p.f.attention / (whole / (kPeak * gemm) * 1e3) == doctest::Approx(2.69).epsilon(0.01));
  // A given --gemm-efficiency replaces the card's; the shapes still cost what they cost.
  const PieceParts given = parts(Recompute::None, false, {.gemm = 0.5});
  CHECK(given.f.attention == doctest::Approx(scores_ms * gemm / 0.5 + values_ms));
}

TEST_CASE("unfused, 64-wide heads at 2k tokens run at about PyTorch's measured standard attention") {
  // The FA3 paper's forward benchmark on an H100 (figure 5, head dimension 64, 2k tokens, a
  // hidden size of 2048: 32 heads, 8 sequences) measures PyTorch's standard attention at 67
  // TFLOP/s over 4 b s^2 h = 274.9 GFLOP. Counted here: the two batched products of 256 heads
  // (unfused_attention.cpp), each bound by reading or writing the 2048 x 2048 scores, 2.28 GB at
  // 0.7 of 3350 GB/s, 0.973 ms each; and the softmax reading and writing the scores, 4.29 GB,
  // 1.83 ms (piece_work's unfused element-wise traffic): 3.78 ms, 72.7 TFLOP/s. At the
  // large-product rate the products took 0.39 ms and the whole 123 TFLOP/s.
  const AttentionCall call{64, 2048, 64, 2048, 256};
  const GpuSpec& h100 = gpu_named("h100");
  const double flops = 4.0 * 8 * 2048 * 2048 * 2048;
  const double products_ms = unfused_attention_ms(flops, 0, call, h100, {}, DType::BF16);
  const double scores_bytes = 256.0 * (2 * 2048 * 64 * 2 + 2.0 * 2048 * 2048);
  CHECK(products_ms == doctest::Approx(2 * scores_bytes / (3350e9 * 0.7) * 1e3));
  const double softmax_ms = 2 * 2 * 256.0 * 2048 * 2048 / (3350e9 * 0.7) * 1e3;
  const double tflops = flops / ((products_ms + softmax_ms) / 1e3) / 1e12;
  CHECK(tflops == doctest::Approx(72.7).epsilon(0.005));
  CHECK(tflops / 67 < 1.1);  // within a tenth of the measurement, where the large-product rate was 1.8 times it
}

TEST_CASE("Blackwell Ultra's attention runs at its measured ratio to Blackwell's, the rest alike") {
  // cuDNN's SDPA training benchmark, one cuDNN on a GB300 and a GB200 (gpu_catalog.cpp): Llama
  // 3.1's heads at 16k tokens ran 1915 against 1708 TFLOP/s forward and 1507 against 1328
  // backward; the catalog takes the geometric means over three models and 2k to 32k tokens,
  // 1.18 and 1.12. The two cards share the bf16 peak and the sustained share, so the fractions
  // are the GB200's times those ratios.
  const GpuSpec& gb200 = gpu_named("gb200");
  const GpuSpec& gb300 = gpu_named("gb300");
  for (const bool forward : {true, false}) {
    const double ratio = attention_fraction({}, gb300, forward) / attention_fraction({}, gb200, forward);
    CHECK(ratio == doctest::Approx(forward ? 1.18 : 1.12));
  }
  CHECK(attention_fraction({}, gb300, true) / attention_fraction({}, gb200, true) ==
        doctest::Approx(1915.0 / 1708).epsilon(0.06).scale(0));
  // The B300 against the B200 alike; the GB200 against the H100's fractions: no ratio.
  CHECK(attention_fraction({}, gpu_named("b300"), false) / attention_fraction({}, gpu_named("b200"), false) ==
        doctest::Approx(1.12));
  CHECK(gb200.attention_forward_ratio == 1.0);
  // Given fractions are the user's: no ratio on top.
  CHECK(attention_fraction({.attention_forward = 0.5}, gb300, true) == 0.5);
}
