#pragma once
// What one simulated run of a schedule produced. Times are simulated nanoseconds.
#include <optional>
#include <string_view>
#include <vector>

#include "model/dependencies.hpp"
#include "model/enum_table.hpp"
#include "model/large_allocator.hpp"
#include "model/op.hpp"
#include "model/units.hpp"

namespace pipeplan {

/// When each device takes its optimizer step (docs/model.md, "The steady state").
enum class OptimizerMode : unsigned char {
  Sync,            ///< a global all-reduce first: every device waits for the last one's ops
  PostValidation,  ///< each device steps as soon as its own ops are done (Qi et al. 2024)
};

inline constexpr EnumTable<OptimizerMode, 2> kOptimizerModes = {{
    {"sync", OptimizerMode::Sync, "an all-reduce before every device's step"},
    {"post-validation", OptimizerMode::PostValidation, "each steps on its own"},
}};

/// "sync" or "post-validation", and back (kOptimizerModes).
[[nodiscard]] constexpr std::string_view optimizer_mode_name(OptimizerMode mode) {
  return enum_name(kOptimizerModes, mode);
}
[[nodiscard]] constexpr std::optional<OptimizerMode> parse_optimizer_mode(std::string_view name) {
  return enum_named(kOptimizerModes, name);
}

struct SimOptions {
  int iterations = 1;  ///< back-to-back training steps, each ending in an optimizer step
  OptimizerMode optimizer_mode = OptimizerMode::Sync;
  /// Record every op's timing and every memory change (SimResult::ops, DeviceTimeline::memory).
  /// A search that needs only the makespan, spans and peaks turns it off to save time.
  bool record_timeline = true;
};

struct OpTiming {
  int device = 0;
  int iteration = 0;
  Op op;
  SimTime start = 0;
  SimTime end = 0;
};

/// The memory a device holds from `time` on, static memory included.
struct MemoryPoint {
  SimTime time = 0;
  Bytes bytes = 0;
};

/// One device in one iteration.
struct IterationTimes {
  SimTime busy = 0;         ///< sum of the durations of its ops (optimizer excluded)
  SimTime first_start = 0;  ///< start of its first op (the iteration's start when it has none)
  SimTime last_end = 0;     ///< end of its last op
  SimTime optimizer_start = 0;
  SimTime optimizer_end = 0;

  [[nodiscard]] SimTime span() const { return last_end - first_start; }
};

struct DeviceTimeline {
  std::vector<IterationTimes> iterations;  ///< one per simulated iteration
  LargeVector<OpTiming> ops;               ///< every op it ran, in start order
  Bytes static_memory = 0;
  Bytes peak_memory = 0;            ///< static memory plus the most activations held at once
  SimTime peak_time = 0;            ///< when the peak is first reached
  LargeVector<MemoryPoint> memory;  ///< every change, in time order, starting at (0, static)

  /// The first iteration's busy time, first start and last end.
  [[nodiscard]] SimTime busy() const { return iterations.front().busy; }
  [[nodiscard]] SimTime first_start() const { return iterations.front().first_start; }
  [[nodiscard]] SimTime last_end() const { return iterations.front().last_end; }
};

/// One device that cannot go on: its next op and what that op still waits for.
struct BlockedDevice {
  int device = 0;
  int iteration = 0;
  std::size_t index = 0;  ///< position of the blocked op in the device's list
  Op head;
  std::vector<Dependency> waiting_for;  ///< the inputs that never came
};

struct SimResult {
  SimOptions options;
  SimTime makespan = 0;     ///< end of the first iteration's last op (up to a deadlock)
  SimTime lower_bound = 0;  ///< step_lower_bound() for the schedule, costs and mode
  std::vector<DeviceTimeline> devices;
  /// Each stage boundary's transfer as the run timed it (boundary s joins stages s and s + 1),
  /// when the timeline is recorded; empty otherwise and for a measured run. critical_path reads
  /// it to tell which input from another device arrived last.
  std::vector<SimTime> boundary_transfers;
  std::vector<BlockedDevice> deadlock;  ///< empty when every op ran
  /// When deadlocked: the devices that wait on each other, `a -> b -> ... -> a` (wait_cycle);
  /// empty when none do (a device may only wait on one that is stuck elsewhere).
  std::vector<int> deadlock_cycle;

  [[nodiscard]] bool deadlocked() const { return !deadlock.empty(); }

  /// Every device's ops, ordered by start time, then device.
  [[nodiscard]] std::vector<const OpTiming*> ops_by_start() const;

  /// The first iteration's total idle time over devices x makespan, in [0, 1].
  [[nodiscard]] double bubble_rate() const;

  /// The time per training step. One iteration: until the last device's optimizer step ends.
  /// More: the steady state, each device's average time from the end of its first optimizer
  /// step to the end of its last, for the slowest device, rounded up to the nanosecond; the
  /// pipeline's fill is then paid once.
  [[nodiscard]] SimTime step_time() const;

  /// The bubble rate on the last iteration's longest per-device span S (first op to last op of
  /// a device), as the zero-bubble paper measures it: sum over devices of (S - busy) / (P x S).
  [[nodiscard]] double span_bubble_rate() const;
};

}  // namespace pipeplan
