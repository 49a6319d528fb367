#pragma once
// What each op costs in simulated time and memory, shared by both simulators (the
// dependency-following one and the one with communication). Internal to lib/sim.
#include <span>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/large_allocator.hpp"
#include "model/op.hpp"
#include "model/units.hpp"

namespace pipeplan::sim {

struct StageTimes {
  SimTime f, b, w, bw;
  SimTime fb;                     ///< an FB whose forward is this stage's; -1: the sum of its parts
  Bytes alloc_f, free_b, free_w;  ///< F allocates alloc_f; B frees free_b, W free_w, BW alloc_f
  Bytes work_f, work_b;           ///< held by F, and by B (or BW), from their start to their end
  Bytes layer_f;                  ///< one layer's share of alloc_f where FB pairs run layer by layer
};

[[nodiscard]] std::vector<StageTimes> stage_times(const CostModel& costs);

/// Each device's optimizer step, in nanoseconds.
[[nodiscard]] std::vector<SimTime> optimizer_times(const CostModel& costs);

/// When each op's output is ready, per iteration, stage and micro-batch (-1: not yet): the
/// forward's, the input gradient's (B or BW) and the split B's.
struct OutputEnds {
  LargeVector<SimTime>& forward;
  LargeVector<SimTime>& gradient;
  LargeVector<SimTime>& split_b;

  /// Every slot unknown again, for `slots` slots.
  void reset(std::size_t slots) const {
    forward.assign(slots, -1);
    gradient.assign(slots, -1);
    split_b.assign(slots, -1);
  }
};

[[nodiscard]] inline SimTime duration(std::span<const StageTimes> times, const Op& op) {
  const StageTimes& t = times[static_cast<std::size_t>(op.stage)];
  switch (op.kind) {
    case OpKind::F:
      return t.f;
    case OpKind::B:
      return t.b;
    case OpKind::W:
      return t.w;
    case OpKind::BW:
      return t.bw;
    case OpKind::FB:
      return t.fb >= 0 ? t.fb : t.f + times[static_cast<std::size_t>(op.overlap_stage)].bw;
  }
  return 0;
}

/// The memory an op changes at its start and at its end (docs/model.md, "Memory"): F allocates a_F at its
/// start; B frees a_F - a_W, W a_W and BW a_F at their ends; FB takes what it holds at once of its
/// forward's a_F (fb_held_bytes: all of it, unless the pair runs layer by layer) at its start and
/// leaves its forward's a_F less its backward's at its end. Each also holds its workspace from
/// start to end.
struct MemoryEffect {
  Bytes at_start = 0;
  Bytes at_end = 0;
};
[[nodiscard]] inline MemoryEffect memory_effect(std::span<const StageTimes> times, const Op& op) {
  const StageTimes& t = times[static_cast<std::size_t>(op.stage)];
  switch (op.kind) {
    case OpKind::F:
      return {t.alloc_f + t.work_f, -t.work_f};
    case OpKind::B:
      return {t.work_b, -t.free_b - t.work_b};
    case OpKind::W:
      return {0, -t.free_w};
    case OpKind::BW:
      return {t.work_b, -t.alloc_f - t.work_b};
    case OpKind::FB: {
      const StageTimes& back = times[static_cast<std::size_t>(op.overlap_stage)];
      const Bytes held = fb_held_bytes(t.alloc_f, t.layer_f, back.alloc_f, back.layer_f);
      return {held + t.work_f + back.work_b, t.alloc_f - held - back.alloc_f - t.work_f - back.work_b};
    }
  }
  return {};
}

}  // namespace pipeplan::sim
