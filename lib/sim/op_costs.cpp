#include "sim/op_costs.hpp"

namespace pipeplan::sim {

std::vector<StageTimes> stage_times(const CostModel& costs) {
  std::vector<StageTimes> out;
  out.reserve(costs.stages.size());
  for (const StageCost& c : costs.stages) {
    out.push_back({ms_to_ns(c.f_ms), ms_to_ns(c.b_ms), ms_to_ns(c.w_ms), ms_to_ns(c.b_ms + c.w_ms),
                   c.f_and_b_ms ? ms_to_ns(*c.f_and_b_ms) : -1, c.activation_bytes,
                   c.activation_bytes - c.w_activation_bytes, c.w_activation_bytes, c.f_workspace_bytes,
                   c.b_workspace_bytes, c.layer_activation_bytes});
  }
  return out;
}

std::vector<SimTime> optimizer_times(const CostModel& costs) {
  std::vector<SimTime> out;
  for (const DeviceCost& d : costs.devices) out.push_back(ms_to_ns(d.optimizer_ms));
  return out;
}

}  // namespace pipeplan::sim
