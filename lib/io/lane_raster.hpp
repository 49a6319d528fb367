#pragma once
// A device's lane cut into equal cells of time, each showing what the device did for most of
// it: the terminal view draws a character per cell, the SVG a pixel per cell once its op boxes
// would be thinner than a pixel or two. A cell is busy when the device's ops cover at least half
// of it, whatever their number: ten ops of a tenth of a cell each make a busy cell, where a rule
// asking for one op to cover the half would show the device idle.
#include <array>
#include <vector>

#include "model/op.hpp"
#include "model/schedule.hpp"
#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// What covers a cell is counted per kind and chunk: index kind * 2, plus 1 on a later chunk.
inline constexpr std::size_t kLaneKeys = 2 * kOpKindCount;

struct LaneCell {
  bool busy = false;
  OpKind kind = OpKind::F;                   ///< when busy: the kind that covers most of the cell...
  bool later_chunk = false;                  ///< ...on the device's first stage or a later one
  int ops = 0;                               ///< the ops that overlap the cell, however little
  std::array<SimTime, kLaneKeys> covered{};  ///< the time each kind and chunk covers
};

/// The first stage `device` holds (its chunk 0); the schedule's stage count when it holds none.
[[nodiscard]] int first_stage_of(const Schedule& schedule, int device);

/// `cells` equal cells over [0, end), for one device's ops (every iteration's, as drawn). Costs
/// O(ops + cells) time and O(cells) memory.
[[nodiscard]] std::vector<LaneCell> lane_cells(const DeviceTimeline& device, int first_stage, SimTime end, int cells);

/// The same cells: true where `ops` (some of one device's, not overlapping each other) cover at
/// least half of the cell, the rule that makes a cell busy. The terminal view marks the critical
/// path's cells with it.
[[nodiscard]] std::vector<bool> half_covered_cells(const std::vector<const OpTiming*>& ops, SimTime end, int cells);

}  // namespace pipeplan
