#pragma once
// The one way a schedule file is timed under a communication mode: lowered when it has no sends
// and receives of its own (once, with the policy asked for), then simulated once under the mode.
// Callers get the result and the lowering it used together, so nobody lowers again to learn
// which policy ran (a `timed` lowering is itself a simulation).
#include <optional>

#include "costs/cost_model.hpp"
#include "lower/lowering.hpp"
#include "model/lowered.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct CommRun {
  CommMode mode = CommMode::Overlap;
  /// For a file without sends and receives under blocking or rendezvous: where they go
  /// (default Timed). Must be empty under Overlap and for a file that has its own.
  std::optional<LowerPolicy> policy;
  SimOptions options;
};

struct LoweredRun {
  CommMode mode = CommMode::Overlap;
  /// The run. Overlap: simulate()'s result, no transfers and no stuck devices.
  CommSimResult run;
  /// What ran under blocking or rendezvous: the file's own posts (from_file) or the policy's.
  /// Overlap: empty.
  LoweredSchedule lowering;
  bool from_file = false;
};

/// The lowering `file` runs with under communication `mode`: its own sends and receives when it
/// has them, otherwise its compute schedule lowered with `policy` (default Timed, ordered with
/// `costs` and placed for `mode`: lower()). Throws Error when a policy is given for a file that
/// has its own.
[[nodiscard]] LoweredSchedule lowering_to_run(const LoweredSchedule& file, std::optional<LowerPolicy> policy,
                                              const CostModel& costs, CommMode mode);

/// Times `file` under `how.mode`: simulate() on its compute schedule for Overlap, otherwise
/// simulate_with_comm() on lowering_to_run(). A deadlock is not an error (run.stuck and
/// run.result.deadlock say where). Throws Error as those do, and when `how.policy` is given under
/// Overlap.
[[nodiscard]] LoweredRun simulate_lowered(const LoweredSchedule& file, const CostModel& costs, const CommRun& how);

}  // namespace pipeplan
