#include "sim/timeline_recorder.hpp"

#include <algorithm>

#include "sim/transfer_rule.hpp"

namespace pipeplan::sim {

TimelineRecorder::TimelineRecorder(const Schedule& schedule, const CostModel& costs, const SimOptions& options)
    : record_(options.record_timeline), memory_(static_cast<std::size_t>(schedule.devices), 0) {
  result_.options = options;
  result_.devices.resize(memory_.size());
  if (record_) result_.boundary_transfers = TransferRule(costs).per_boundary();
  const auto iterations = static_cast<std::size_t>(options.iterations);
  for (std::size_t d = 0; d < memory_.size(); ++d) {
    DeviceTimeline& t = result_.devices[d];
    t.iterations.resize(iterations);
    t.static_memory = costs.devices[d].static_memory_bytes;
    t.peak_memory = t.static_memory;
    if (record_) {
      t.ops.reserve(schedule.order[d].size() * iterations);
      t.memory.reserve(schedule.order[d].size() * iterations + 1);  // each op changes it at most once
    }
    t.memory.push_back({0, t.static_memory});
    memory_[d] = t.static_memory;
  }
}

void TimelineRecorder::no_ops(int device, int iteration, SimTime at) {
  IterationTimes& t = result_.devices[static_cast<std::size_t>(device)].iterations[static_cast<std::size_t>(iteration)];
  t.first_start = t.last_end = at;
}

void TimelineRecorder::optimizer(int device, int iteration, SimTime start, SimTime end) {
  IterationTimes& t = result_.devices[static_cast<std::size_t>(device)].iterations[static_cast<std::size_t>(iteration)];
  t.optimizer_start = start;
  t.optimizer_end = end;
}

}  // namespace pipeplan::sim
