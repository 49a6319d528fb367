// The attention core's rate (docs/costs.md, "Work per piece", attention core): flash attention's
// fused kernel at its measured fractions of the peak, forward and backward; a recomputed forward
// at the forward's; unfused, cuBLAS's products at the GEMM efficiency.
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_work.hpp"
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

PieceParts parts(Recompute recompute, bool flash, const Efficiency& e = {}) {
  TrainingSettings t;
  t.seq = 2048;
  t.recompute = recompute;
  t.flash_attention = flash;
  return piece_parts(layer_work(llama70b(), t), PhaseGemms{}, gpu_named("h100"), e, t);
}

}  // namespace

TEST_CASE("flash attention's core: the forward at 0.54 of the peak, the backward (2.5 times the FLOPs) at 0.52") {
  const PieceParts p = parts(Recompute::None, true);
  CHECK(p.f.attention == doctest::Approx(kCore / (kPeak * 0.54) * 1e3));  // 0.13666 ms
  CHECK(p.b.attention == doctest::Approx(2.5 * kCore / (kPeak * 0.52) * 1e3));
  CHECK(p.w.attention == 0.0);
  // The defaults are cuDNN's 539 and 516 of 989 TFLOP/s (FlashAttention-3, figures 5 and 6).
  CHECK(Efficiency{}.attention_forward == doctest::Approx(539.0 / 989).epsilon(0.01));
  CHECK(Efficiency{}.attention_backward == doctest::Approx(516.0 / 989).epsilon(0.01));
}

TEST_CASE("a recomputed forward's core runs at the forward's fraction inside B") {
  // Full recompute: B runs F's core again (at 0.54) before its own backward (at 0.52).
  const PieceParts full = parts(Recompute::Full, true);
  CHECK(full.b.attention == doctest::Approx((kCore / 0.54 + 2.5 * kCore / 0.52) / kPeak * 1e3));
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
