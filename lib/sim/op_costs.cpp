#include "sim/op_costs.hpp"

namespace pipeplan::sim {

std::vector<StageTimes> stage_times(const CostModel& costs) {
  std::vector<StageTimes> out;
  out.reserve(costs.stages.size());
  for (const StageCost& c : costs.stages) {
    out.push_back({ms_to_ns(c.f_ms), ms_to_ns(c.b_ms), ms_to_ns(c.w_ms), ms_to_ns(c.b_ms + c.w_ms),
                   c.f_and_b_ms ? ms_to_ns(*c.f_and_b_ms) : -1, c.activation_bytes,
                   c.activation_bytes - c.w_activation_bytes, c.w_activation_bytes});
  }
  return out;
}

SimTime duration(std::span<const StageTimes> times, const Op& op) {
  const StageTimes& t = times[static_cast<std::size_t>(op.stage)];
  switch (op.kind) {
    case OpKind::F: return t.f;
    case OpKind::B: return t.b;
    case OpKind::W: return t.w;
    case OpKind::BW: return t.bw;
    case OpKind::FB: return t.fb >= 0 ? t.fb : t.f + times[static_cast<std::size_t>(op.overlap_stage)].bw;
  }
  return 0;
}

MemoryEffect memory_effect(std::span<const StageTimes> times, const Op& op) {
  const StageTimes& t = times[static_cast<std::size_t>(op.stage)];
  switch (op.kind) {
    case OpKind::F: return {t.alloc_f, 0};
    case OpKind::B: return {0, -t.free_b};
    case OpKind::W: return {0, -t.free_w};
    case OpKind::BW: return {0, -t.alloc_f};
    case OpKind::FB: return {t.alloc_f, -times[static_cast<std::size_t>(op.overlap_stage)].alloc_f};
  }
  return {};
}

}  // namespace pipeplan::sim
