// The GEMM rate a card sustains (docs/costs.md, "GEMM rate"): each card's measured fraction, the
// default where none is cited, and --gemm-efficiency over both.
#include <doctest/doctest.h>

#include "estimate/gpu_catalog.hpp"
#include "estimate/sustained_gemm.hpp"

using namespace pipeplan;

TEST_CASE("a card's GEMMs run at its measured sustained rate, per precision") {
  const Efficiency card{};
  // The measurements docs/costs.md cites: sustained TFLOP/s over the data sheet's peak.
  CHECK(gemm_fraction(card, gpu_named("a100-80gb"), false) == doctest::Approx(256.5 / 312));
  CHECK(gemm_fraction(card, gpu_named("h100"), false) == doctest::Approx(698.6 / 989));
  // FP8 on Hopper: the H200's power-saturated rate, measured alone, times what bf16 lost on its
  // board with all 8 GPUs computing (698.6 against 702.9 alone), for every card of its chip.
  CHECK(gemm_fraction(card, gpu_named("h100"), true) == doctest::Approx(1288.7 * 698.6 / 702.9 / 1979));
  CHECK(gemm_fraction(card, gpu_named("h200"), true) == doctest::Approx(1288.7 * 698.6 / 702.9 / 1979));
  CHECK(gemm_fraction(card, gpu_named("b200"), false) == doctest::Approx(1426.4 / 2250));
  // The B200's likewise: 1426.4 all busy against 1455.7 alone.
  CHECK(gemm_fraction(card, gpu_named("b200"), true) == doctest::Approx(2795.7 * 1426.4 / 1455.7 / 4500));
  // The GB200 has its own FP8 measurement; its bf16 is the B200's power-saturated 1426.4 times
  // the two chips' measured short-run maxima, 1822 over 1745: 1489.3 TFLOP/s, 0.596 of its 2500
  // (the data sheets' peaks would have made it 1584.9, 11% over the B200 where the chips measure
  // 4.4% apart).
  CHECK(gemm_fraction(card, gpu_named("gb200"), false) * 2500 == doctest::Approx(1489.3).epsilon(1e-4));
  CHECK(gemm_fraction(card, gpu_named("gb200"), true) == doctest::Approx(2906.9 / 5000));
  // Blackwell Ultra takes its Blackwell sibling's measurements where it has none of its own: the
  // B300 both, the GB300 the GB200's bf16; the GB300's FP8 is Azure's cuBLASLt rate on an ND GB300 v6.
  CHECK(gemm_fraction(card, gpu_named("b300"), false) == doctest::Approx(1426.4 / 2250));
  CHECK(gemm_fraction(card, gpu_named("b300"), true) == gemm_fraction(card, gpu_named("b200"), true));
  CHECK(gemm_fraction(card, gpu_named("gb300"), false) == gemm_fraction(card, gpu_named("gb200"), false));
  CHECK(gemm_fraction(card, gpu_named("gb300"), true) == doctest::Approx(3308.5 / 5000));
  // No measurement cited: the default.
  CHECK(gemm_fraction(card, gpu_named("rtx4090"), false) == kUnmeasuredGemmFraction);
  CHECK(gemm_fraction(card, gpu_named("a100-80gb"), true) == kUnmeasuredGemmFraction);
  // Given, it replaces the card's in every precision.
  CHECK(gemm_fraction({.gemm = 0.5}, gpu_named("h100"), false) == 0.5);
  CHECK(gemm_fraction({.gemm = 0.5}, gpu_named("h100"), true) == 0.5);
  CHECK(gemm_efficiency_text(card, gpu_named("h100")) == "0.706 (FP8 0.647) measured on the card");
  CHECK(gemm_efficiency_text({.gemm = 0.5}, gpu_named("h100")) == "0.5");
}
