#pragma once
// A second, deliberately plain timer for the tests, written from docs/model.md's simulator rules and
// not from lib/sim: the property tests compare simulate() with it op by op.
#include <vector>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::test {

struct ReferenceOp {
  int iteration = 0;
  Op op;
  SimTime start = 0;
  SimTime end = 0;
};

struct ReferenceRun {
  std::vector<std::vector<ReferenceOp>> ops;  ///< per device, in the order it ran them
  std::vector<int> stuck_at;  ///< per device: the index of the op it is blocked at; -1 when it finished its list
};

/// Times `iterations` iterations of `s`: a device runs its list in order; an op starts when the
/// device is free and every input has arrived (its producer's end, plus the transfer of the
/// boundary between the two stages when the producer sits on another device); after its list each device takes its
/// optimizer step, at once (post-validation) or when every device has finished the iteration (sync). Rescans every
/// device until nothing moves: quadratic, and obviously so.
[[nodiscard]] ReferenceRun reference_times(const Schedule& s, const CostModel& c, int iterations, OptimizerMode mode);

}  // namespace pipeplan::test
