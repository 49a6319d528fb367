#include "plan/step_breakdown.hpp"

#include <algorithm>

#include "model/units.hpp"

namespace pipeplan {

StepBreakdown step_breakdown(const AnalyticProfile& profile, const std::vector<int>& placement, const SimResult& result,
                             int microbatches) {
  StepBreakdown out;
  const ProfileBreakdown& b = profile.breakdown;
  out.measured = b.measured;
  for (std::size_t d = 1; d < result.devices.size(); ++d) {
    if (result.devices[d].busy() > result.devices[std::size_t(out.device)].busy()) out.device = int(d);
  }
  const double m = microbatches;
  double lines = 0;
  for (std::size_t s = 0; s < placement.size() && s < b.stages.size(); ++s) {
    if (placement[s] != out.device) continue;
    TimeParts layers = b.stages[s];
    if (out.measured) {  // measured times are not split: the stage's whole time less its embedding and head
      const StageCost& c = profile.costs.stages[s];
      const double offload = layers.offload;  // estimated beside the measurement: its own line
      layers = {};
      layers.offload = offload;
      layers.products = c.f_ms + c.b_ms + c.w_ms - b.edge_ms[s] - offload;
    }
    out.layers += layers.scaled(m);
    out.embedding_head_ms += m * b.edge_ms[s];
  }
  lines = out.layers.total() + out.embedding_head_ms;
  const auto d = std::size_t(out.device);
  if (d < b.optimizer_ms.size()) out.optimizer_ms = b.optimizer_ms[d];
  if (d < b.data_parallel_ms.size()) out.data_parallel_ms = b.data_parallel_ms[d];
  const double busy = result.devices.empty() ? 0.0 : ns_to_ms(result.devices[d].busy());
  out.overlap_ms = std::min(0.0, busy - lines);
  out.step_ms = ns_to_ms(result.step_time());
  // What the device's ops and its optimizer leave of the step: the pipeline's bubble and waits.
  out.idle_ms = out.step_ms - (lines + out.overlap_ms) - out.optimizer_ms - out.data_parallel_ms;
  return out;
}

}  // namespace pipeplan
