#include "estimate/attention_kernel.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "estimate/sustained_gemm.hpp"

namespace pipeplan {

namespace {

// Shah et al. 2024 (FlashAttention-3, arXiv:2407.08608), TFLOP/s on an H100 SXM5 in bf16 at
// 512, 1k, 2k, 4k, 8k and 16k tokens a sequence (16k tokens a batch, 2048 wide): figure 5's
// causal forward at head dimensions 64, 128 and 256, figure 6's backward at 64 and 128.
constexpr double kBenchmarkPeak = 989.0;
constexpr std::array<double, 6> kSpans = {512, 1024, 2048, 4096, 8192, 16384};
constexpr std::array<double, 3> kHeadDims = {64, 128, 256};
using Row = std::array<double, 6>;

struct KernelRates {
  std::array<Row, 3> forward;   ///< by kHeadDims
  std::array<Row, 2> backward;  ///< at 64 and 128
};

constexpr KernelRates kCudnn = {
    {{{225, 288, 334, 363, 379, 388}, {315, 410, 484, 518, 529, 539}, {308, 391, 450, 483, 497, 509}}},
    {{{266, 348, 395, 417, 432, 433}, {305, 408, 465, 499, 518, 516}}}};
constexpr KernelRates kFlash2 = {
    {{{180, 229, 262, 284, 295, 299}, {191, 260, 298, 319, 333, 335}, {208, 251, 278, 293, 297, 298}}},
    {{{198, 238, 264, 279, 287, 291}, {214, 260, 291, 310, 318, 322}}}};
constexpr KernelRates kFlash3 = {
    {{{197, 265, 371, 420, 460, 473}, {292, 423, 521, 579, 602, 616}, {286, 427, 537, 612, 628, 642}}},
    {{{272, 363, 422, 453, 472, 474}, {316, 424, 501, 542, 559, 561}}}};

const KernelRates& rates_of(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::FlashAttention2:
      return kFlash2;
    case AttentionKernel::FlashAttention3:
      return kFlash3;
    case AttentionKernel::Cudnn:
      break;
  }
  return kCudnn;
}

// Where `span` falls along kSpans: linearly in its logarithm, held at the ends. Read once per
// call, for the two rows interpolated between.
struct SpanPoint {
  std::size_t index = 0;  ///< the measured span below it
  double t = 0;           ///< its share of the way to the next
};

SpanPoint span_point(double span) {
  const double x = std::log2(std::clamp(span, kSpans.front(), kSpans.back()) / kSpans.front());
  const auto i = std::min(static_cast<std::size_t>(x), kSpans.size() - 2);
  return {i, x - double(i)};
}

double along_spans(const Row& row, SpanPoint at) {
  return row[at.index] + (row[at.index + 1] - row[at.index]) * at.t;
}

// Linear interpolation in the head dimension over `rows` (at kHeadDims' first rows), held at
// the ends.
template <std::size_t N>
double along_head_dims(const std::array<Row, N>& rows, const AttentionCall& call) {
  const double d = std::clamp(call.head_dim, kHeadDims.front(), kHeadDims[N - 1]);
  std::size_t i = 0;
  while (i + 2 < N && d > kHeadDims[i + 1]) ++i;
  const double t = (d - kHeadDims[i]) / (kHeadDims[i + 1] - kHeadDims[i]);
  const SpanPoint at = span_point(call.span);
  return along_spans(rows[i], at) * (1 - t) + along_spans(rows[i + 1], at) * t;
}

// One direction's fraction: the planner asks for each apart, many times a configuration.
double benchmark_fraction(AttentionKernel kernel, bool forward, const AttentionCall& call) {
  const KernelRates& r = rates_of(kernel);
  return (forward ? along_head_dims(r.forward, call) : along_head_dims(r.backward, call)) / kBenchmarkPeak;
}

// The benchmark counts a causal core as half the scores (4·s²·d·heads / 2: flash-attn's
// `benchmark_attn.py` convention, which the FA3 paper's figures take for every kernel), while the
// kernel computes the diagonal's blocks whole and pipeplan counts those blocks ("Work per
// piece"). So per block-counted FLOP the kernel ran causal_block_share / (1/2) times the rate the
// figure gives, at the span the rate is read at: (n + 1)/n for n blocks.
double block_work_over_counted(double span) {
  return 2 * causal_block_share(std::clamp(span, kSpans.front(), kSpans.back()));
}

}  // namespace

double causal_block_share(double seq) {
  const double n = std::ceil(seq / kFlashBlock);
  return (n + 1) / (2 * n);
}

AttentionFractions benchmark_attention_fractions(AttentionKernel kernel, const AttentionCall& call) {
  return {benchmark_fraction(kernel, true, call), benchmark_fraction(kernel, false, call)};
}

double attention_fraction(const Efficiency& efficiency, const GpuSpec& gpu, bool forward, const AttentionCall& call) {
  const double given = forward ? efficiency.attention_forward : efficiency.attention_backward;
  if (given > 0) return given;
  const double benchmark = benchmark_fraction(efficiency.attention_kernel, forward, call);
  const double card = forward ? gpu.attention_forward_ratio : gpu.attention_backward_ratio;
  return benchmark * block_work_over_counted(call.span) * card * sustained_share_of_burst(gpu);
}

std::string attention_efficiency_text(const Efficiency& efficiency, const GpuSpec& gpu) {
  const AttentionCall reference;
  const double forward = attention_fraction(efficiency, gpu, true, reference);
  const double backward = attention_fraction(efficiency, gpu, false, reference);
  // The flag gives both fractions at once (model_flags.cpp).
  if (efficiency.attention_forward > 0 || efficiency.attention_backward > 0) {
    return fmt::format("{},{}", forward, backward);
  }
  return fmt::format("{}'s by head dimension and length {} ({:.3f},{:.3f} at {} and {}k)",
                     attention_kernel_name(efficiency.attention_kernel),
                     sustained_share_of_burst(gpu) < 1 ? "at the card's sustained clock" : "as benchmarked", forward,
                     backward, reference.head_dim, reference.span / 1024);
}

}  // namespace pipeplan
