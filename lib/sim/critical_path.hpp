#pragma once
// The critical path of a simulated run: the chain of ops and transfers that sets the step's
// makespan. Shortening any op on it (or the transfer before it) could shorten the step; an op
// off it has slack. The pictures mark it and `simulate --critical-path` lists it.
#include <vector>

#include "model/dependencies.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// One op of the critical path, and how it was reached from the op before it on the path.
struct CriticalStep {
  const OpTiming* op = nullptr;  ///< into the SimResult the path was computed from
  /// It waited for an input from the previous step's op on another device: the transfer
  /// between the two is on the path. False for the first step and for a step that followed the
  /// previous op of its own device.
  bool after_transfer = false;
  /// When after_transfer: the input whose transfer is on the path (the Chrome trace draws that
  /// transfer's arrow as the path's; an FB may wait for two inputs from one device).
  Dependency input{};
};

/// The first iteration's critical path, first op first. From the op that ends last, it walks
/// back to whatever that op's start waited for: the previous op on its device when that one
/// ended exactly at the start (preferred on a tie, as the device was busy up to it); else the
/// input from another device that arrived last (its end plus its boundary's transfer,
/// SimResult::boundary_transfers, which fills the gap); else the latest of what remains (a gap the timeline cannot
/// explain, as the blocking and rendezvous modes' posting leaves), until an op with nothing
/// before it. Under the overlapped simulator the first op starts at 0 and every step is tight,
/// so the ops' durations plus the transfers add up to the makespan. Empty when the run
/// recorded no timeline.
[[nodiscard]] std::vector<CriticalStep> critical_path(const Schedule& schedule, const SimResult& result);

}  // namespace pipeplan
