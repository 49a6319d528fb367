#include <doctest/doctest.h>

#include "estimate/gemm_efficiency.hpp"

using namespace pipeplan;

namespace {

// 100 TFLOP/s bf16, 1000 GB/s, 4 SMs; both efficiencies 0.5: a large product runs at 5e13
// FLOP/s, memory at 5e11 B/s. A wave is 4 tiles of 128 x 128.
GpuSpec four_sm_gpu() {
  return {
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50.0, 0.01}, {"net", 10.0, 0.05},
      4};
}
constexpr Efficiency kHalf{0.5, 0.5};

}  // namespace

TEST_CASE("a product of whole waves of whole tiles runs at the GEMM efficiency") {
  const GemmShape g{256, 256, 4096};  // 2 x 2 tiles: one full wave
  CHECK(quantisation_efficiency(g, 4) == 1.0);
  // 2 * 256 * 256 * 4096 = 536870912 FLOPs / 5e13 = 0.0107374 ms; its 4325376 bytes take
  // 0.0086508 ms, so it is compute-bound.
  CHECK(gemm_ms(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(536870912.0 / 5e13 * 1e3));
  CHECK(shape_efficiency(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(1.0));
}

TEST_CASE("one tile more than a wave costs two waves") {
  // 1 x 5 tiles on 4 SMs: 2 waves, each as long as the full wave of 128 x 128 x 4096 tiles:
  // 2 * 4 * 2 * 128 * 128 * 4096 / 5e13 s. Useful share 128 * 640 / (8 * 128 * 128) = 0.625.
  const GemmShape g{128, 640, 4096};
  CHECK(quantisation_efficiency(g, 4) == 0.625);
  CHECK(gemm_ms(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(2 * 4 * 2.0 * 128 * 128 * 4096 / 5e13 * 1e3));
  // A whole wave's worth of rows or columns more is free: 4 tiles still fill one wave.
  CHECK(quantisation_efficiency({128, 512, 4096}, 4) == 1.0);
}

TEST_CASE("a partial tile is computed whole") {
  // m = 129 needs 2 tiles along m: 2 x 2 tiles, one wave; useful 129 * 256 of 4 * 128 * 128.
  CHECK(quantisation_efficiency({129, 256, 64}, 4) == doctest::Approx(129.0 * 256 / (4 * 128 * 128)));
  // Batched products share the waves: 3 single-tile products on 4 SMs fill 3/4 of one.
  CHECK(quantisation_efficiency({128, 128, 64, 3}, 4) == 0.75);
  CHECK(quantisation_efficiency({128, 640, 64}, 0) == 1.0);  // no SM count: not modelled
}

TEST_CASE("the micro-batch fills the waves of A100's 108 SMs") {
  // An output projection of h = 2304 over 1024 tokens: 8 x 18 = 144 tiles, 2 waves of 108,
  // 144 / 216 useful; at 2048 tokens 288 tiles, 3 waves, 288 / 324.
  CHECK(quantisation_efficiency({1024, 2304, 2304}, 108) == doctest::Approx(144.0 / 216));
  CHECK(quantisation_efficiency({2048, 2304, 2304}, 108) == doctest::Approx(288.0 / 324));
}

TEST_CASE("a product too small to reuse its operands runs at the memory bandwidth") {
  // 512 x 512 x 64: 33554432 FLOPs take 6.71e-4 ms; it reads A and B (2 * 512 * 64 * 2 bytes)
  // and writes C (512 * 512 * 2): 655360 bytes at 5e11 B/s, 1.31072e-3 ms, the longer.
  const GemmShape g{512, 512, 64};
  CHECK(g.bytes(DType::BF16) == 655360.0);
  CHECK(gemm_ms(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(1.31072e-3));
  CHECK(shape_efficiency(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(0.512));
  // A weight gradient accumulated into fp32 reads and writes C in fp32: 8 bytes an element.
  const GemmShape accumulated{512, 512, 64, 1, true};
  CHECK(accumulated.bytes(DType::BF16) == 131072.0 + 512 * 512 * 8);
}
