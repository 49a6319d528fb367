#include "estimate/sustained_gemm.hpp"

#include <fmt/format.h>

namespace pipeplan {

double gemm_fraction(const Efficiency& efficiency, const GpuSpec& gpu, bool fp8) {
  if (efficiency.gemm > 0) return efficiency.gemm;
  const double measured = fp8 ? gpu.sustained_gemm_fp8 : gpu.sustained_gemm;
  return measured > 0 ? measured : kUnmeasuredGemmFraction;
}

std::string gemm_efficiency_text(const Efficiency& efficiency, const GpuSpec& gpu) {
  if (efficiency.gemm > 0) return fmt::format("{}", efficiency.gemm);
  std::string text = fmt::format("{:.3f}", gemm_fraction(efficiency, gpu, false));
  if (gpu.fp8_flops() > 0) text += fmt::format(" (FP8 {:.3f})", gemm_fraction(efficiency, gpu, true));
  return text + (gpu.sustained_gemm > 0 ? " measured on the card" : " (none measured for the card)");
}

double sustained_share_of_burst(const GpuSpec& gpu) {
  return gpu.sustained_gemm > 0 && gpu.burst_gemm > 0 ? gpu.sustained_gemm / gpu.burst_gemm : 1.0;
}

}  // namespace pipeplan
