#include "estimate/gemm_efficiency.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "estimate/sustained_gemm.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

double ceil_div(std::int64_t a, std::int64_t b) {
  return double((a + b - 1) / b);
}

// The product's peak: the FP8 one for an FP8 product.
double peak_of(const GemmShape& g, const GpuSpec& gpu, DType dtype) {
  if (!g.fp8) return gpu.peak_flops(dtype);
  if (gpu.fp8_flops() <= 0) throw Error(std::string(gpu.name) + " has no FP8 tensor cores");
  return gpu.fp8_flops();
}

// FLOPs at the rate a large, well-shaped product reaches, in milliseconds.
double large_gemm_ms(const GemmShape& g, const GpuSpec& gpu, const Efficiency& e, DType dtype) {
  return g.flops() / (peak_of(g, gpu, dtype) * gemm_fraction(e, gpu, g.fp8) * (g.fp8 ? g.fp8_rate : 1.0)) * 1e3;
}

}  // namespace

double GemmShape::flops() const {
  return 2.0 * double(m) * double(n) * double(k) * double(batch);
}

double GemmShape::bytes(DType dtype) const {
  const double e = element_bytes(dtype);
  const double in = fp8 ? 1.0 : e;
  const double c = accumulates_fp32 ? 8.0 : e;  // fp32 read and written back, or written once
  return double(batch) * (in * double(m) * double(k) + in * double(k) * double(n) + c * double(m) * double(n));
}

double quantisation_efficiency(const GemmShape& g, int sms) {
  if (sms <= 0 || g.m <= 0 || g.n <= 0) return 1.0;
  // Every tile runs the whole k loop, so a tile's time is the same whether it is full or not,
  // and a wave takes as long as a full one however few tiles it holds.
  const double tiles = ceil_div(g.m, kTileM) * ceil_div(g.n, kTileN) * double(g.batch);
  const double waves = std::ceil(tiles / sms);
  return double(g.m) * double(g.n) * double(g.batch) / (waves * sms * double(kTileM * kTileN));
}

double k_loop_efficiency(const GemmShape& g, const GpuSpec& gpu, DType dtype) {
  if (gpu.sms <= 0 || g.k <= 0) return 1.0;
  // The K a tile covers in kTileFixedUs: its SM's share of the peak over a tile's 2·128·128
  // FLOPs per unit of K, at its recipe's rate (a block-scaled loop is slower, its fixed time not).
  const double rate = peak_of(g, gpu, dtype) * (g.fp8 ? g.fp8_rate : 1.0);
  const double k0 = kTileFixedUs * 1e-6 * rate / gpu.sms / (2.0 * double(kTileM * kTileN));
  const auto share = [k0](double k) { return k / (k + k0); };
  return std::min(1.0, share(double(g.k)) / share(double(kMeasuredK)));
}

double gemm_ms(const GemmShape& g, const GpuSpec& gpu, const Efficiency& e, DType dtype) {
  const double compute =
      large_gemm_ms(g, gpu, e, dtype) / quantisation_efficiency(g, gpu.sms) / k_loop_efficiency(g, gpu, dtype);
  const double memory = g.bytes(dtype) / (gpu.memory_gb_per_s * 1e9 * e.memory) * 1e3;
  return std::max(compute, memory);
}

double shape_efficiency(const GemmShape& g, const GpuSpec& gpu, const Efficiency& e, DType dtype) {
  const double ms = gemm_ms(g, gpu, e, dtype);
  return ms > 0 ? large_gemm_ms(g, gpu, e, dtype) / ms : 1.0;
}

}  // namespace pipeplan
