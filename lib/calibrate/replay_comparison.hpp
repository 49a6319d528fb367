#pragma once
// A replay's measured timeline as a result the core's tools read, and the comparison of a
// prediction with it (docs/gpu.md): the step, each device's bubble, and the first op whose start
// parts from the prediction by more than a share of the predicted step.
#include <optional>
#include <string>
#include <vector>

#include "calibrate/replay_program.hpp"
#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct MeasuredOp {
  SimTime start = 0, end = 0;  ///< from the rank's base event
};

/// The result of one measured step: each rank's compute steps of `program`, in order, with the
/// times in `ops[rank]` (one per compute step). Throws Error when a rank's count differs.
[[nodiscard]] SimResult measured_result(const ReplayProgram& program, const std::vector<std::vector<MeasuredOp>>& ops);

struct PartedOp {
  int device = 0;
  std::size_t index = 0;  ///< position in the device's list
  Op op;
  SimTime predicted_start = 0, measured_start = 0;
};

struct ReplayComparison {
  double predicted_ms = 0, measured_ms = 0;
  double error_percent = 0;                               ///< (predicted - measured) / measured
  std::vector<double> predicted_bubble, measured_bubble;  ///< per device: 1 - busy / makespan
  double threshold = 0;                                   ///< the share of the predicted makespan an op may part by
  std::optional<PartedOp> first_parted;                   ///< by device, then position
};

/// Both results hold the first iteration of the same schedule, each device's ops in its order.
/// replay runs no optimizer step, so the makespans (last op's end) are compared, not the steps.
[[nodiscard]] ReplayComparison compare_replay(const SimResult& predicted, const SimResult& measured, double threshold);

}  // namespace pipeplan
