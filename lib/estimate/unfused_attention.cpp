#include "estimate/unfused_attention.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "estimate/gemm_efficiency.hpp"

namespace pipeplan {

namespace {

// Milliseconds per FLOP of a set of products: their time at their shapes over their FLOPs.
double ms_per_flop(std::initializer_list<GemmShape> products, const GpuSpec& gpu, const Efficiency& e, DType dtype) {
  double ms = 0, flops = 0;
  for (const GemmShape& g : products) {
    ms += gemm_ms(g, gpu, e, dtype);
    flops += g.flops();
  }
  return flops > 0 ? ms / flops : 0.0;
}

std::int64_t whole(double x) {
  return std::max<std::int64_t>(1, std::llround(x));
}

}  // namespace

double unfused_attention_ms(double forward, double backward, const AttentionCall& call, const GpuSpec& gpu,
                            const Efficiency& e, DType dtype) {
  const std::int64_t s = whole(call.queries), dk = whole(call.head_dim), dv = whole(call.value_dim);
  const std::int64_t batch = whole(call.batch);
  // Forward (Megatron-LM's CoreAttention: baddbmm, then bmm): scores = Q K^T, s x s over K = dk;
  // out = P V, s x dv over K = s.
  const GemmShape scores{s, s, dk, batch}, values{s, dv, s, batch};
  // Backward: dP = dO V^T (s x s over K = dv), dV = P^T dO (s x dv over K = s), dQ = dS K and
  // dK = dS^T Q (s x dk over K = s).
  const GemmShape score_grad{s, s, dv, batch}, value_grad{s, dv, s, batch}, query_grad{s, dk, s, batch};
  return forward * ms_per_flop({scores, values}, gpu, e, dtype) +
         backward * ms_per_flop({score_grad, value_grad, query_grad, query_grad}, gpu, e, dtype);
}

}  // namespace pipeplan
