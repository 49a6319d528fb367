#pragma once
// The critical path (sim/critical_path.hpp) as the views that mark it ask about it: is this op
// on it, is this input's transfer on it. Computed once per run; each question is a binary
// search over the path's ops, which are a small part of the run's.
#include <vector>

#include "model/dependencies.hpp"
#include "model/schedule.hpp"
#include "sim/critical_path.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

class CriticalMarks {
 public:
  CriticalMarks(const Schedule& schedule, const SimResult& result);

  /// The path, first op first (empty when the run recorded no timeline).
  [[nodiscard]] const std::vector<CriticalStep>& path() const { return path_; }
  /// `t` is one of the path's ops (the first iteration's; `t` points into the same result).
  [[nodiscard]] bool has_op(const OpTiming& t) const { return step_of(t) != nullptr; }
  /// The transfer of `consumer`'s input `dep` is on the path: the consumer waited for it last.
  [[nodiscard]] bool has_transfer(const OpTiming& consumer, const Dependency& dep) const;

 private:
  [[nodiscard]] const CriticalStep* step_of(const OpTiming& t) const;

  std::vector<CriticalStep> path_;
  std::vector<CriticalStep> by_op_;  ///< the same steps ordered by their op's address
};

}  // namespace pipeplan
