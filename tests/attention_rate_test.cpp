// The attention core's rate (docs/costs.md, "Work per piece", attention core): flash attention's
// fused kernel at its measured fractions of the peak, forward and backward, kept at the card's
// sustained share of the benchmark's clock; a recomputed forward at the forward's; unfused,
// cuBLAS's products at the GEMM efficiency.
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/attention_kernel.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/sustained_gemm.hpp"
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
// cuDNN's fractions, measured in a benchmark's short runs, at the H100's sustained share of them:
// its power-saturated GEMM rate over its burst one, 698.6 / 794.5 TFLOP/s (gpu_catalog.cpp).
constexpr double kSustained = 698.6 / 794.5;
constexpr double kForward = 539.0 / 989 * kSustained;
constexpr double kBackward = 516.0 / 989 * kSustained;

PieceParts parts(Recompute recompute, bool flash, const Efficiency& e = {}) {
  TrainingSettings t;
  t.seq = 2048;
  t.recompute = recompute;
  t.flash_attention = flash;
  return piece_parts(layer_work(llama70b(), t), PhaseGemms{}, gpu_named("h100"), e, t);
}

}  // namespace

TEST_CASE(
    "flash attention's core: the forward at cuDNN's 539 of 989 TFLOP/s, the backward (2.5 times the FLOPs) at 516, "
    "each at the card's sustained share") {
  const PieceParts p = parts(Recompute::None, true);
  CHECK(p.f.attention == doctest::Approx(kCore / (kPeak * kForward) * 1e3));  // 0.15400 ms
  CHECK(p.f.attention == doctest::Approx(0.15400).epsilon(1e-3));
  CHECK(p.b.attention == doctest::Approx(2.5 * kCore / (kPeak * kBackward) * 1e3));
  CHECK(p.w.attention == 0.0);
  // The benchmark's fractions are cuDNN's 539 and 516 of 989 TFLOP/s (FlashAttention-3, figures 5
  // and 6), FlashAttention-2's 335 and 322, FlashAttention-3's 616 and 561.
  CHECK(benchmark_attention_fractions(AttentionKernel::Cudnn).forward == doctest::Approx(539.0 / 989));
  CHECK(benchmark_attention_fractions(AttentionKernel::Cudnn).backward == doctest::Approx(516.0 / 989));
  CHECK(benchmark_attention_fractions(AttentionKernel::FlashAttention2).forward == doctest::Approx(335.0 / 989));
  CHECK(benchmark_attention_fractions(AttentionKernel::FlashAttention2).backward == doctest::Approx(322.0 / 989));
  CHECK(benchmark_attention_fractions(AttentionKernel::FlashAttention3).forward == doctest::Approx(616.0 / 989));
  CHECK(benchmark_attention_fractions(AttentionKernel::FlashAttention3).backward == doctest::Approx(561.0 / 989));
}

TEST_CASE("--attention-kernel fa2 prices the core at FlashAttention-2's rate, kept at the sustained share") {
  const PieceParts fa2 = parts(Recompute::None, true, {.attention_kernel = AttentionKernel::FlashAttention2});
  CHECK(fa2.f.attention == doctest::Approx(kCore / (kPeak * 335 / 989 * kSustained) * 1e3));
  CHECK(fa2.b.attention == doctest::Approx(2.5 * kCore / (kPeak * 322 / 989 * kSustained) * 1e3));
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
  // The GB200's bf16 rate is the B200's fraction of its own peak; its burst is its own, 1822.
  CHECK(sustained_share_of_burst(gpu_named("gb200")) == doctest::Approx((1426.4 / 2250) / (1822.0 / 2500)));
  // No sustained rate cited (B300, GB300, the GeForce cards): nothing to keep a share of.
  CHECK(sustained_share_of_burst(gpu_named("b300")) == 1.0);
  CHECK(sustained_share_of_burst(gpu_named("rtx3090")) == 1.0);
  // Given fractions are taken as they are, in the profile's source line too.
  CHECK(attention_fraction({.attention_forward = 0.5}, gpu_named("h100"), true) == 0.5);
  CHECK(attention_fraction({.attention_forward = 0.5}, gpu_named("h100"), false) == doctest::Approx(kBackward));
  CHECK(attention_efficiency_text({}, gpu_named("h100")) == "0.479,0.459 (cudnn's at the card's sustained clock)");
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

TEST_CASE("without flash attention the core is cuBLAS's batched products, at the GEMM efficiency") {
  // Every score computed (no block share): 4 x 2048^2 x 8192 forward, 4 products (2x) backward.
  const PieceParts p = parts(Recompute::None, false);
  constexpr double whole = 4.0 * 2048 * 2048 * 8192;
  // The h100 row's sustained bf16 GEMM rate, 698.6 of 989 TFLOP/s measured (gpu_catalog.cpp).
  constexpr double gemm = 698.6 / 989.0;
  CHECK(p.f.attention == doctest::Approx(whole / (kPeak * gemm) * 1e3));
  CHECK(p.b.attention == doctest::Approx(2 * whole / (kPeak * gemm) * 1e3));
  // A given --gemm-efficiency replaces the card's.
  const PieceParts given = parts(Recompute::None, false, {.gemm = 0.5});
  CHECK(given.f.attention == doctest::Approx(whole / (kPeak * 0.5) * 1e3));
}
