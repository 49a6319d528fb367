#pragma once
// When an output made on one device can be used on another: the one transfer rule. The
// simulator, the rendezvous simulator, the critical path, the lower bound, the timed lowering and
// every greedy pass time a transfer through it, so a generator optimises the very model that
// `simulate` times (docs/model.md, "Transfers"). A change to what a transfer costs (a fixed
// per-message cost, say) is made here or in CostModel, and nowhere else.
#include <cstddef>
#include <utility>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/units.hpp"

namespace pipeplan {

class TransferRule {
 public:
  /// Each boundary's time as the costs give it, converted to nanoseconds once. Throws Error when
  /// `costs.boundaries` is neither empty nor one per boundary of `costs.stages`.
  explicit TransferRule(const CostModel& costs);
  /// Each boundary's time as a run recorded it (SimResult::boundary_transfers).
  explicit TransferRule(std::vector<SimTime> per_boundary) : crossing_(std::move(per_boundary)) {}

  /// How long an output takes across boundary `b` (joining stages b and b + 1) from one device to
  /// another.
  [[nodiscard]] SimTime crossing(int b) const { return crossing_[static_cast<std::size_t>(b)]; }

  /// When an output that ended at `end` on device `from` is available on device `to`: at once on
  /// the same device, else after crossing boundary `b` (the producer's and the consumer's, the
  /// lower of the two stages).
  [[nodiscard]] SimTime arrival(SimTime end, int from, int to, int b) const {
    return from == to ? end : end + crossing(b);
  }

  /// What crossing from `from` to `to` over boundary `b` adds: arrival(0, from, to, b).
  [[nodiscard]] SimTime delay(int from, int to, int b) const { return arrival(0, from, to, b); }

  /// The longest crossing of any boundary; 0 with none (one stage).
  [[nodiscard]] SimTime longest() const;

  /// Every boundary's crossing, boundary 0 first.
  [[nodiscard]] const std::vector<SimTime>& per_boundary() const { return crossing_; }

 private:
  std::vector<SimTime> crossing_;
};

}  // namespace pipeplan
