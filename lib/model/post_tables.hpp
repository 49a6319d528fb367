#pragma once
// The sends and receives each compute op of a schedule implies on its device: what a lowering
// places (lib/lower) and what a lowering is checked against (lowering_problems). One table
// serves both, so the check and the policies cannot disagree on what an op needs.
#include <array>
#include <cstddef>

#include "model/lowered.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// The sends or receives of one op: at most two (an FB's forward output and input gradient, or
/// its two inputs from other devices), with room for one per dependency so that no schedule can
/// overflow it; no allocation, since the checks ask for every op.
struct CommOps {
  std::array<CommOp, 4> items;
  std::size_t count = 0;
  void push_back(const CommOp& c) { items[count++] = c; }
  [[nodiscard]] const CommOp* begin() const { return items.data(); }
  [[nodiscard]] const CommOp* end() const { return items.data() + count; }
};

/// The receives `op` needs on `device`: one per input produced on another device.
[[nodiscard]] CommOps receives_of(const Schedule& s, const Op& op, int device);

/// The sends after `op` on `device`: its forward output and its input gradient, when the stage
/// that takes them lives elsewhere.
[[nodiscard]] CommOps sends_of(const Schedule& s, const Op& op, int device);

}  // namespace pipeplan
