#pragma once
// The fraction of a card's dense peak a large, well-shaped GEMM sustains in training, measured
// (docs/costs.md, "GEMM rate"): at thermal and power steady state, not the boost-clock burst, since
// a training step keeps every GPU of a node at its power limit.
#include <string>

#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// What `--gemm-efficiency` defaults to where the card's architecture has no measurement.
inline constexpr double kUnmeasuredGemmFraction = 0.7;

/// The fraction a large product runs at: `efficiency.gemm` when given (above 0), else the
/// card's measured one (GpuSpec::sustained_gemm, sustained_gemm_fp8), else
/// kUnmeasuredGemmFraction.
[[nodiscard]] double gemm_fraction(const Efficiency& efficiency, const GpuSpec& gpu, bool fp8);

/// "0.706 (FP8 0.651) measured on the card", or the given fraction: for a profile's source line.
[[nodiscard]] std::string gemm_efficiency_text(const Efficiency& efficiency, const GpuSpec& gpu);

/// What a tensor-core rate measured in a short benchmark keeps in a training step: the card's
/// sustained GEMM fraction over its burst one (GpuSpec::sustained_gemm, burst_gemm), both 16-bit
/// and measured on its chip; 1 where either is not cited. H100: 698.6 / 794.5 = 0.879.
[[nodiscard]] double sustained_share_of_burst(const GpuSpec& gpu);

}  // namespace pipeplan
