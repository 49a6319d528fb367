#pragma once
// What `pipeplan-gpu replay` runs and what it predicts, from one lowering (docs/gpu.md): the
// schedule lowered with the timed policy, each rank's program from that lowering, and the
// prediction of that same lowering under the communication mode replay runs it in. replay
// posts NCCL on each rank's compute stream, so a send or receive holds the stream until its
// peer has posted the matching one: the simulator's `blocking` mode, not simulate()'s
// `overlap`, which lets transfers run beside compute and predicts a shorter step.
#include "calibrate/replay_program.hpp"
#include "costs/cost_model.hpp"
#include "model/lowered.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct ReplayPlan {
  LoweredSchedule lowered;  ///< the timed lowering
  ReplayProgram program;    ///< each rank's steps, from `lowered`
  CommMode mode = CommMode::Blocking;
  SimResult predicted;  ///< `lowered` timed under `mode` with the costs
};

/// The plan of a replay with NCCL on the compute streams (CommMode::Blocking). Throws Error
/// when the schedule cannot be lowered or timed, or when the prediction deadlocks.
[[nodiscard]] ReplayPlan plan_replay(const Schedule& schedule, const CostModel& costs);

}  // namespace pipeplan
