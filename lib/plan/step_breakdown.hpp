#pragma once
// Where a planned step goes (docs/costs.md, "Where the step goes"): the error budget of one
// configuration, on the device whose ops take longest, so that a user who knows their run can
// see which line is wrong. The lines add up to the simulated step.
#include <vector>

#include "estimate/analytic_profile.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct StepBreakdown {
  int device = 0;                ///< the busiest pipeline device, whose step the lines account for
  TimeParts layers;              ///< its layers' time over every micro-batch, line by line
  double embedding_head_ms = 0;  ///< the embedding, the head and the loss, where the device holds them
  double optimizer_ms = 0;       ///< Adam's step (and FP8's weight casts)
  double data_parallel_ms = 0;   ///< the gradient reduction and weight gather that no compute hides
  double overlap_ms = 0;         ///< what DualPipe's overlapped forward and backward hid (0 or below)
  double idle_ms = 0;            ///< the bubble and the waits for other devices' transfers
  double step_ms = 0;            ///< the simulated step: the sum of every line above
  bool measured = false;         ///< the piece times were measured: their lines are one, `layers.products`
};

/// The breakdown of `result`, the simulation of a schedule with `microbatches` micro-batches
/// under `profile`, whose stage s is on device placement[s].
[[nodiscard]] StepBreakdown step_breakdown(const AnalyticProfile& profile, const std::vector<int>& placement,
                                           const SimResult& result, int microbatches);

}  // namespace pipeplan
