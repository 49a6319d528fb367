#pragma once
// Megatron-Core's overlap of the expert all-to-alls (--overlap-moe-expert-parallel-comm,
// TrainingSettings::moe_a2a_overlap): in the steady state of 1F1B and interleaved 1F1B it runs
// each fused backward beside the forward the device runs next, one micro-batch's dispatch and
// combine under the other's compute, as DualPipe pairs its ops. docs/schedules.md, "Expert
// all-to-all overlap".
#include "model/schedule.hpp"

namespace pipeplan {

/// The schedule with every fused backward (BW) that a device's order follows with a forward (F)
/// merged with it into one FB op, timed by the stage's f_and_b_ms (moe_work.hpp's pair). The
/// other ops, and split backwards (B then W, which Megatron's pairing does not take), stay.
[[nodiscard]] Schedule pair_backwards_with_next_forwards(Schedule schedule);

}  // namespace pipeplan
