#pragma once
// What one simulated run of a schedule produced. Times are simulated nanoseconds.
#include <vector>

#include "model/dependencies.hpp"
#include "model/op.hpp"
#include "model/units.hpp"

namespace pipeplan {

struct OpTiming {
  int device = 0;
  Op op;
  SimTime start = 0;
  SimTime end = 0;
};

/// The memory a device holds from `time` on, static memory included.
struct MemoryPoint {
  SimTime time = 0;
  Bytes bytes = 0;
};

struct DeviceTimeline {
  SimTime busy = 0;         ///< sum of the durations of the device's ops
  SimTime first_start = 0;  ///< start of its first op (0 when it has none)
  SimTime last_end = 0;     ///< end of its last op (0 when it has none)
  Bytes static_memory = 0;
  Bytes peak_memory = 0;    ///< static memory plus the most activations held at once
  SimTime peak_time = 0;    ///< when the peak is first reached
  SimTime optimizer = 0;    ///< the optimizer step's time, from the costs
  std::vector<MemoryPoint> memory;  ///< every change, in time order, starting at (0, static)
};

/// One device that cannot go on: its next op and what that op still waits for.
struct BlockedDevice {
  int device = 0;
  std::size_t index = 0;  ///< position of the blocked op in the device's list
  Op head;
  std::vector<Dependency> waiting_for;  ///< the inputs that never came
};

struct SimResult {
  SimTime makespan = 0;               ///< end of the last op (up to the deadlock, if any)
  std::vector<DeviceTimeline> devices;
  std::vector<OpTiming> ops;          ///< ordered by start time, then device
  std::vector<BlockedDevice> deadlock;  ///< empty when every op ran

  [[nodiscard]] bool deadlocked() const { return !deadlock.empty(); }

  /// Total idle time over devices x makespan, in [0, 1]; 0 for an empty run.
  [[nodiscard]] double bubble_rate() const;

  /// One training step with a synchronous optimizer: the makespan, then a global barrier, then
  /// every device's optimizer step; the step ends with the slowest device's.
  [[nodiscard]] SimTime step_time() const;
};

}  // namespace pipeplan
