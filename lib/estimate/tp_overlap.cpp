#include "estimate/tp_overlap.hpp"

#include <algorithm>

#include "estimate/collective_contention.hpp"

namespace pipeplan {

TpOverlapMs tp_overlap_ms(int collectives, double collective_ms, const std::vector<OverlapSpan>& spans,
                          const std::vector<GemmShape>& products, const GpuSpec& gpu, const Efficiency& efficiency,
                          DType dtype, int tp) {
  TpOverlapMs out;
  if (collectives <= 0) return out;
  const std::size_t paired = std::min(spans.size(), std::size_t(collectives));
  out.exposed = double(collectives - int(paired)) * collective_ms;
  for (std::size_t i = 0; i < paired; ++i) {
    const OverlapSpan& s = spans[i];
    double whole = 0, chunks = 0;
    for (std::size_t k = s.first; k < s.first + s.count && k < products.size(); ++k) {
      whole += gemm_ms(products[k], gpu, efficiency, dtype);
      GemmShape chunk = products[k];
      chunk.m = (chunk.m + tp - 1) / tp;
      chunks += tp * gemm_ms(chunk, gpu, efficiency, dtype);
    }
    if (s.chunked && tp > 1) {
      out.chunked_extra += std::max(0.0, chunks - whole);
      out.exposed += std::max(0.0, collective_ms - chunks * (tp - 1) / tp);
    } else {
      const double shown = std::max(0.0, collective_ms - whole);
      out.exposed += shown + hidden_collective_ms(collective_ms, shown, gpu, kBulkOverlapSms);
    }
  }
  return out;
}

double async_tp_copy_bytes(const std::vector<OverlapSpan>& spans, int collectives, double tensor_bytes, int tp) {
  if (tp <= 1 || collectives <= 0) return 0;
  const std::size_t paired = std::min(spans.size(), std::size_t(collectives));
  double bytes = 0;
  for (std::size_t i = 0; i < paired; ++i)
    bytes += spans[i].scatter ? tensor_bytes * (1 + 1.0 / tp) : 2 * tensor_bytes / tp;
  return bytes;
}

}  // namespace pipeplan
