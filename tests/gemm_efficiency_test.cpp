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
// The same card without an SM count: no tiles, so the roofline alone.
GpuSpec no_sm_gpu() {
  GpuSpec g = four_sm_gpu();
  g.sms = 0;
  return g;
}
constexpr Efficiency kHalf{0.5, 0.5};

}  // namespace

TEST_CASE("a product of whole waves of whole tiles runs at the GEMM efficiency") {
  // 2 x 2 tiles: one full wave, over the K the sustained rates were measured at.
  const GemmShape g{256, 256, kMeasuredK};
  CHECK(quantisation_efficiency(g, 4) == 1.0);
  CHECK(k_loop_efficiency(g, four_sm_gpu(), DType::BF16) == 1.0);
  // 2 * 256 * 256 * 16384 = 2147483648 FLOPs / 5e13 = 0.0429497 ms; its 16908288 bytes take
  // 0.0338166 ms, so it is compute-bound.
  CHECK(gemm_ms(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(2147483648.0 / 5e13 * 1e3));
  CHECK(shape_efficiency(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(1.0));
}

TEST_CASE("one tile more than a wave costs two waves") {
  // 1 x 5 tiles on 4 SMs: 2 waves, each as long as the full wave of 128 x 128 x 16384 tiles:
  // 2 * 4 * 2 * 128 * 128 * 16384 / 5e13 s. Useful share 128 * 640 / (8 * 128 * 128) = 0.625.
  const GemmShape g{128, 640, kMeasuredK};
  CHECK(quantisation_efficiency(g, 4) == 0.625);
  CHECK(gemm_ms(g, four_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(2 * 4 * 2.0 * 128 * 128 * 16384 / 5e13 * 1e3));
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
  // and writes C (512 * 512 * 2): 655360 bytes at 5e11 B/s, 1.31072e-3 ms, the longer. (On a
  // card with SMs its tiles' fixed time would outlast both: the roofline alone here.)
  const GemmShape g{512, 512, 64};
  CHECK(g.bytes(DType::BF16) == 655360.0);
  CHECK(gemm_ms(g, no_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(1.31072e-3).scale(0));
  CHECK(shape_efficiency(g, no_sm_gpu(), kHalf, DType::BF16) == doctest::Approx(0.512));
  // A weight gradient accumulated into fp32 reads and writes C in fp32: 8 bytes an element.
  const GemmShape accumulated{512, 512, 64, 1, true};
  CHECK(accumulated.bytes(DType::BF16) == 131072.0 + 512 * 512 * 8);
}

TEST_CASE("a tile's fixed time is what a short K loop does not amortise") {
  // H100: 989.4 TFLOP/s over 132 SMs, 7.4955 TFLOP/s an SM; in kTileFixedUs = 1 us a tile of
  // 2 * 128 * 128 FLOPs per unit of K covers K0 = 7.4955e12 * 1e-6 / 32768 = 228.74.
  const GpuSpec& h100 = gpu_named("h100");
  const double k0 = 989.4e12 / 132 * 1e-6 / 32768;
  const auto share = [&](double k, double k0_) { return k / (k + k0_); };
  // K 2048, as a 2048-wide model's QKV has: 2048 / 2276.74 over 16384 / 16612.74 = 0.9121.
  CHECK(k_loop_efficiency({4096, 4096, 2048}, h100, DType::BF16) ==
        doctest::Approx(share(2048, k0) / share(16384, k0)));
  CHECK(k_loop_efficiency({4096, 4096, 2048}, h100, DType::BF16) == doctest::Approx(0.9121).epsilon(1e-3).scale(0));
  // The FP8 peak (1978.9) covers twice the elements in the same time: K0 = 457.5.
  GemmShape fp8{4096, 4096, 2048};
  fp8.fp8 = true;
  const double k0_fp8 = 1978.9e12 / 132 * 1e-6 / 32768;
  CHECK(k_loop_efficiency(fp8, h100, DType::BF16) == doctest::Approx(share(2048, k0_fp8) / share(16384, k0_fp8)));
  // A recipe whose loop runs slower (GemmShape::fp8_rate) covers less of K in the same fixed time.
  fp8.fp8_rate = 0.5;
  CHECK(k_loop_efficiency(fp8, h100, DType::BF16) ==
        doctest::Approx(share(2048, k0_fp8 / 2) / share(16384, k0_fp8 / 2)));
  // At or past the measured K nothing is lost; without an SM count nothing is modelled.
  CHECK(k_loop_efficiency({4096, 4096, 32768}, h100, DType::BF16) == 1.0);
  CHECK(k_loop_efficiency({4096, 4096, 2048}, no_sm_gpu(), DType::BF16) == 1.0);
}

TEST_CASE("the K loop's share matches OpenXLA's measured Hopper matmuls") {
  // OpenXLA's default matmul table (xla/service/gpu/model/matmul_interpolator_data.h, sm_90,
  // bf16): a batch of 4 products of 4096 x 1024 runs at 674 TFLOP/s with K 1024, 542 with K 512
  // and 778 with K 4096. Same tiles and waves at each K, so the ratios are the K loop's alone:
  // 0.866 and 0.697 against the model's 0.863 and 0.730 (K0 = 228.74).
  const GpuSpec& h100 = gpu_named("h100");
  const auto at = [&](std::int64_t k) { return k_loop_efficiency({4096, 1024, k, 4}, h100, DType::BF16); };
  CHECK(at(1024) / at(4096) == doctest::Approx(674.0 / 778).epsilon(0.01).scale(0));
  CHECK(at(512) / at(4096) == doctest::Approx(542.0 / 778).epsilon(0.05).scale(0));
}

TEST_CASE("the K loop's share matches OpenXLA's measured Blackwell matmuls") {
  // The same table's sm_100 (B200) rows: 4 x 4096 x 4096 at K 1024, 2048 and 4096 run at 1350,
  // 1544 and 1691 TFLOP/s: 0.798 and 0.913 of K 4096, against 0.766 and 0.908 with the B200's
  // K0 = 2250e12 / 148 * 1e-6 / 32768 = 464.0, twice the H100's as its SM's rate is.
  const GpuSpec& b200 = gpu_named("b200");
  const auto at = [&](std::int64_t k) { return k_loop_efficiency({4096, 4096, k, 4}, b200, DType::BF16); };
  CHECK(at(1024) / at(4096) == doctest::Approx(1350.0 / 1691).epsilon(0.05).scale(0));
  CHECK(at(2048) / at(4096) == doctest::Approx(1544.0 / 1691).epsilon(0.01).scale(0));
}

TEST_CASE("an FP8 product's K loop matches DeepGEMM's measured H800 products") {
  // DeepGEMM's README at its first release: block-scaled FP8 GEMMs on an H800, M = 4096. N 7168
  // runs 1358 TFLOP/s at K 16384 and 1025 at K 2048 (0.755); N 4096 at K 7168 runs 1304 (0.960
  // of the K 16384 rate). The model, K0 = 457.5 at the FP8 peak: 0.840 and 0.966; with bf16's K0
  // the first would be 0.912, further from the measurement.
  const GpuSpec& h800 = gpu_named("h800");
  const auto at = [&](std::int64_t n, std::int64_t k) {
    GemmShape g{4096, n, k};
    g.fp8 = true;
    return k_loop_efficiency(g, h800, DType::BF16);
  };
  CHECK(at(4096, 7168) == doctest::Approx(1304.0 / 1358).epsilon(0.02).scale(0));
  CHECK(at(7168, 2048) == doctest::Approx(1025.0 / 1358).epsilon(0.12).scale(0));
  CHECK(at(7168, 2048) < k_loop_efficiency({4096, 7168, 2048}, h800, DType::BF16));
}
