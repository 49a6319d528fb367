#pragma once
// What a run holds in memory, estimated before it starts from the sizes of the structures it
// fills (issue 31, item 8): a request under the op limit (kMaxOps) could still need more memory
// than the machine has, and then ended in a bare "out of memory" after minutes. Each term is a
// sizeof of the type the code allocates, times how many it allocates, so the estimate follows the
// code when a type grows; docs/formats.md ("Memory before the work") lists them.
#include <cstddef>

#include "model/units.hpp"

namespace pipeplan {

/// What a timing keeps beside the schedule.
struct RunShape {
  long long ops = 0;      ///< the schedule's ops, every device together
  int iterations = 1;     ///< back-to-back steps timed
  bool timeline = false;  ///< every op's timing and memory change recorded (SimOptions::record_timeline)
  bool comm = false;      ///< the communication simulator: a lowered schedule's sends and receives
};

/// Bytes a schedule of `ops` ops holds as op lists: sizeof(Op) each, twice over, since a list
/// grown by doubling has at most twice the capacity it uses.
[[nodiscard]] Bytes schedule_bytes(long long ops);

/// Bytes a run of `shape` allocates beside the schedule it times:
/// - always, the readiness of every output per iteration, stage and micro-batch (SimWorkspace:
///   three SimTime, at most one slot per op);
/// - with the timeline, an OpTiming and a MemoryPoint per op and iteration (timeline_recorder
///   reserves them exactly) and the pointer ops_by_start sorts;
/// - with comm, the lowered copy (a LoweredAction per op and per send and receive, at most two
///   of those per op: its input and its output), the posts the plan arranges (a PostItem per op,
///   a CommSlot per send or receive, a receive's slot index) and a transfer's state per send
///   (one per op at most) and iteration.
[[nodiscard]] Bytes run_bytes(const RunShape& shape);

}  // namespace pipeplan
