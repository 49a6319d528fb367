#pragma once
// What the planner knows of a configuration before simulating it (docs/costs.md, "Pruning"):
// bounds that let it skip configurations which cannot fit or cannot reach the top rows.
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// Per device, the least memory any schedule needs: its static memory plus one micro-batch's
/// a_F on each of its stages (the last stage's forward of a micro-batch ends while every stage
/// still holds that micro-batch's activations, since each backward needs the next stage's).
[[nodiscard]] std::vector<Bytes> memory_lower_bound(const CostModel& costs, const std::vector<int>& placement,
                                                    int devices);

/// step_lower_bound for any schedule of `microbatches` on `placement`.
[[nodiscard]] SimTime step_bound(const CostModel& costs, const std::vector<int>& placement, int devices,
                                 int microbatches, OptimizerMode mode);

/// The `keep` smallest distinct step times found so far (by a planner's job and the jobs before
/// it, planner.cpp). A configuration whose lower bound exceeds bar() cannot enter the top `keep`.
class TopSteps {
 public:
  explicit TopSteps(std::size_t keep) : keep_(keep) {}
  /// A copy of what `other` holds now (the planner's snapshots, planner.cpp).
  TopSteps(const TopSteps& other);
  TopSteps& operator=(const TopSteps&) = delete;
  /// The keep-th smallest step so far; the largest SimTime while fewer are known (or keep is 0).
  [[nodiscard]] SimTime bar() const;
  /// Adds a row's step. Rows of one non-empty `group` are shown as one row (pp 1 under every
  /// schedule and chunk count, whose steps differ by the rounding of stage splits), so a group
  /// holds one place, at its best step.
  void add(SimTime step, const std::string& group = {});
  /// Adds every step `other` holds, as add() would one by one.
  void merge(const TopSteps& other);

 private:
  std::size_t keep_;
  mutable std::mutex mutex_;
  std::vector<std::pair<SimTime, std::string>> steps_;  ///< sorted by step, at most keep_
};

}  // namespace pipeplan
