#pragma once
// How fast one matrix product runs for its shape (docs/costs.md, "GEMM shapes"): the output is
// computed in tiles, the tiles run in waves of one per SM, and the partial tiles and the last
// partial wave do work that is thrown away; a product too small to reuse its operands runs at
// the memory bandwidth instead (the roofline); and each tile pays a fixed time beside its K loop,
// which a short K does not amortise. `--gemm-efficiency` is what a large, well-shaped product
// reaches; this file says how much of it a given shape keeps.
#include <cstdint>

#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// C (m x n) = A (m x k) B (k x n), `batch` times. Sizes are per tensor-parallel rank.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  /// C is read and written in fp32 as well (a weight gradient accumulated into Megatron-LM's
  /// fp32 main gradient, `--gradient-accumulation-fusion`), instead of written once in `dtype`.
  bool accumulates_fp32 = false;
  /// A and B in FP8, one byte an element (their scales are the recipe's traffic, fp8_recipe.hpp),
  /// at the card's FP8 peak; C still in `dtype` (or fp32, above).
  bool fp8 = false;
  /// An FP8 product's kernel rate against a per-tensor-scaled one's at the same shape: its
  /// recipe's (fp8_gemm_rate, fp8_recipe.hpp); 1 otherwise.
  double fp8_rate = 1.0;

  [[nodiscard]] double flops() const;
  /// Bytes the product moves through memory at least: A and B read, C written (or accumulated).
  [[nodiscard]] double bytes(DType dtype) const;
};

/// The output tile one thread block computes; one runs on each SM at a time, so a wave is `sms`
/// tiles (NVIDIA's Matrix Multiplication Background guide, docs/costs.md).
inline constexpr std::int64_t kTileM = 128;
inline constexpr std::int64_t kTileN = 128;

/// Useful work over the work done: m·n / (waves · sms · tile area), where the ceil(m/128) ·
/// ceil(n/128) · batch tiles run in waves of `sms`. 1 for a product of whole waves of whole
/// tiles; 1 when `sms` is 0 (a card without the count: no quantisation modelled).
[[nodiscard]] double quantisation_efficiency(const GemmShape& gemm, int sms);

/// A tile's time beside its K loop (filling the operand pipeline, writing its C), in
/// microseconds: OpenXLA's measured bf16 matmul table (matmul_interpolator_data.h) fits
/// rate(K) ∝ K / (K + K0) with K0 = 230 on Hopper and 476 on Blackwell (docs/costs.md, "GEMM
/// shapes"), both 1.0 us of a tile's K loop at the card's peak per SM (989/132, 2250/148 TFLOP/s).
inline constexpr double kTileFixedUs = 1.0;
/// The K of the products the sustained rates were measured on (Azure's 16384³, sustained_gemm.hpp),
/// where the K loop's share is taken as 1.
inline constexpr std::int64_t kMeasuredK = 16384;

/// The K loop's share of a tile's time, K / (K + K0), over the same at kMeasuredK, at most 1:
/// K0 is the K a tile's SM covers in kTileFixedUs at the product's peak (the FP8 one for an fp8
/// product, so twice the elements) times its recipe's rate (GemmShape::fp8_rate). 1 when `sms`
/// is 0 (no per-SM rate) or K is 0.
[[nodiscard]] double k_loop_efficiency(const GemmShape& gemm, const GpuSpec& gpu, DType dtype);

/// The product's time in milliseconds: its FLOPs at the peak (the FP8 one for an fp8 product)
/// times `gemm` efficiency times its quantisation and its K loop's share, or its bytes at the
/// bandwidth times `memory` efficiency, whichever is longer. Throws Error for an fp8 product on a
/// card without FP8.
[[nodiscard]] double gemm_ms(const GemmShape& gemm, const GpuSpec& gpu, const Efficiency& efficiency, DType dtype);

/// The fraction of `efficiency.gemm` the shape keeps, min(quantisation · K loop, roofline): the time a
/// large, well-shaped product of the same FLOPs would take over gemm_ms.
[[nodiscard]] double shape_efficiency(const GemmShape& gemm, const GpuSpec& gpu, const Efficiency& efficiency,
                                      DType dtype);

}  // namespace pipeplan
