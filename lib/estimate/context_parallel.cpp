#include "estimate/context_parallel.hpp"

#include <algorithm>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

void check_context_parallel(const TrainingSettings& tr) {
  if (tr.cp < 1) throw Error("--cp " + std::to_string(tr.cp) + ": context parallelism must be at least 1");
  if (tr.cp == 1) return;
  if (tr.seq % (2 * tr.cp) != 0) {
    throw Error("--cp " + std::to_string(tr.cp) + ": the sequence (" + std::to_string(tr.seq) +
                " tokens) must divide into 2 x cp = " + std::to_string(2 * tr.cp) +
                " chunks, two on each rank for the causal load balance");
  }
  if (!tr.flash_attention) {
    throw Error("--cp " + std::to_string(tr.cp) +
                ": context parallelism needs flash attention (Megatron's ring runs in Transformer Engine's fused "
                "attention); drop --no-flash-attention");
  }
}

std::int64_t context_tokens(const TrainingSettings& tr) {
  return std::int64_t{tr.seq} * tr.micro_batch / std::max(tr.cp, 1);
}

double context_core_share(const TrainingSettings& tr) {
  return 1.0 / std::max(tr.cp, 1);
}

ContextRing context_ring(const TrainingSettings& tr, double q_width, double kv_width, double f_core_flops,
                         double b_core_flops) {
  ContextRing ring;
  if (tr.cp <= 1) return ring;
  ring.steps = tr.cp - 1;
  const double tokens = double(context_tokens(tr)) / tr.tp;  // per rank, its heads' share
  const double e = element_bytes(tr.dtype);
  ring.kv_bytes = tokens * kv_width * e;
  ring.merge_f_bytes = ring.steps * 3 * tokens * q_width * e;
  ring.merge_b_bytes = ring.steps * 8 * tokens * (q_width + kv_width);
  ring.f_core_flops = f_core_flops;
  ring.b_core_flops = b_core_flops;
  ring.forward_again = tr.recompute == Recompute::Full;
  return ring;
}

RingMs ring_exposed_ms(const ContextRing& ring, double f_core_ms, double b_core_ms, const LinkSpec& link) {
  if (ring.steps <= 0) return {};
  const double cp = ring.steps + 1;
  const double f = ring.steps * std::max(0.0, link.send_ms(ring.kv_bytes) - f_core_ms / cp);
  const double b = ring.steps * std::max(0.0, link.send_ms(2 * ring.kv_bytes) - b_core_ms / cp);
  return {f, b + (ring.forward_again ? f : 0.0)};
}

}  // namespace pipeplan
