#include "estimate/attention_kernel.hpp"

#include <fmt/format.h>

#include "estimate/sustained_gemm.hpp"

namespace pipeplan {

AttentionFractions benchmark_attention_fractions(AttentionKernel kernel) {
  constexpr double kH100 = 989.0;
  switch (kernel) {
    case AttentionKernel::FlashAttention2:
      return {335 / kH100, 322 / kH100};
    case AttentionKernel::FlashAttention3:
      return {616 / kH100, 561 / kH100};
    case AttentionKernel::Cudnn:
      break;
  }
  return {539 / kH100, 516 / kH100};
}

double attention_fraction(const Efficiency& efficiency, const GpuSpec& gpu, bool forward) {
  const double given = forward ? efficiency.attention_forward : efficiency.attention_backward;
  if (given > 0) return given;
  const AttentionFractions measured = benchmark_attention_fractions(efficiency.attention_kernel);
  return (forward ? measured.forward : measured.backward) * sustained_share_of_burst(gpu);
}

std::string attention_efficiency_text(const Efficiency& efficiency, const GpuSpec& gpu) {
  const double forward = attention_fraction(efficiency, gpu, true);
  const double backward = attention_fraction(efficiency, gpu, false);
  if (efficiency.attention_forward > 0 && efficiency.attention_backward > 0) {
    return fmt::format("{},{}", forward, backward);
  }
  const std::string pair = fmt::format("{:.3f},{:.3f}", forward, backward);
  if (efficiency.attention_forward > 0 || efficiency.attention_backward > 0) return pair;
  return pair + fmt::format(" ({}'s ", attention_kernel_name(efficiency.attention_kernel)) +
         (sustained_share_of_burst(gpu) < 1 ? "at the card's sustained clock)"
                                            : "benchmark rate; none sustained measured for the card)");
}

}  // namespace pipeplan
