#pragma once
// Builds a SimResult as a simulator runs ops: per device and iteration the busy time, first
// start and last end, the op timings and the memory timeline with its peak. Shared by both
// simulators. Internal to lib/sim.
#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "sim/op_costs.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::sim {

class TimelineRecorder {
 public:
  TimelineRecorder(const Schedule& schedule, const CostModel& costs, const SimOptions& options);

  /// Device `device` ran `op` from `start` to `end` in `iteration`; `first` when it is the
  /// first op of the iteration on that device.
  void op(int device, int iteration, bool first, const Op& op, SimTime start, SimTime end, MemoryEffect memory) {
    DeviceTimeline& timeline = result_.devices[static_cast<std::size_t>(device)];
    IterationTimes& t = timeline.iterations[static_cast<std::size_t>(iteration)];
    if (first) t.first_start = start;
    t.busy += end - start;
    t.last_end = end;
    if (iteration == 0 && end > result_.makespan) result_.makespan = end;
    if (record_) timeline.ops.push_back({device, iteration, op, start, end});
    if (memory.at_start != 0) change_memory(timeline, device, start, memory.at_start);
    if (memory.at_end != 0) change_memory(timeline, device, end, memory.at_end);
  }

  /// A device with no ops in an iteration: its span is the instant `at`.
  void no_ops(int device, int iteration, SimTime at);

  void optimizer(int device, int iteration, SimTime start, SimTime end);

  /// The memory the device holds now.
  [[nodiscard]] Bytes memory(int device) const { return memory_[static_cast<std::size_t>(device)]; }

  [[nodiscard]] SimResult& result() { return result_; }
  [[nodiscard]] const SimResult& result() const { return result_; }

 private:
  void change_memory(DeviceTimeline& t, int device, SimTime now, Bytes delta) {
    Bytes& memory = memory_[static_cast<std::size_t>(device)];
    memory += delta;
    if (record_) {
      if (t.memory.back().time == now) {
        t.memory.back().bytes = memory;
      } else {
        t.memory.push_back({now, memory});
      }
    }
    if (memory > t.peak_memory) {
      t.peak_memory = memory;
      t.peak_time = now;
    }
  }

  bool record_;
  std::vector<Bytes> memory_;
  SimResult result_;
};

}  // namespace pipeplan::sim
