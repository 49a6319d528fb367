#include "sim/sim_result.hpp"

#include <algorithm>

namespace pipeplan {

double SimResult::bubble_rate() const {
  if (makespan == 0 || devices.empty()) return 0.0;
  SimTime idle = 0;
  for (const DeviceTimeline& d : devices) idle += makespan - d.busy;
  return static_cast<double>(idle) /
         (static_cast<double>(devices.size()) * static_cast<double>(makespan));
}

SimTime SimResult::step_time() const {
  SimTime slowest_optimizer = 0;
  for (const DeviceTimeline& d : devices) slowest_optimizer = std::max(slowest_optimizer, d.optimizer);
  return makespan + slowest_optimizer;
}

}  // namespace pipeplan
