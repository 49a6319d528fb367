#pragma once
// The end of an iteration, shared by both simulators so that they cannot disagree on when the
// optimizer steps. Internal to lib/sim.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::sim {

/// Post-validation: a device steps as soon as its own ops are done. Sync: it waits until every
/// device is done (the all-reduce before the step), then all step at once, when the last is done.
class IterationBarrier {
 public:
  IterationBarrier(int devices, OptimizerMode mode) : waiting_(static_cast<std::size_t>(devices), false), mode_(mode) {}

  /// `device` has run its ops of this iteration; they end at `done`. Calls `step(d, start)` for
  /// every device that steps now: this one alone under post-validation; under sync none until
  /// the last device arrives, then each device in order. Returns true when a sync barrier
  /// released every device (the caller wakes them).
  template <class Step>
  bool arrive(int device, SimTime done, Step&& step) {
    if (mode_ == OptimizerMode::PostValidation) {
      step(device, done);
      return false;
    }
    waiting_[static_cast<std::size_t>(device)] = true;
    latest_ = std::max(latest_, done);
    if (++arrived_ < waiting_.size()) return false;
    const SimTime start = latest_;
    arrived_ = 0;
    latest_ = 0;
    for (std::size_t d = 0; d < waiting_.size(); ++d) {
      waiting_[d] = false;
      step(static_cast<int>(d), start);
    }
    return true;
  }

  /// True while `device` waits at a sync barrier for the others.
  [[nodiscard]] bool waiting(int device) const { return waiting_[static_cast<std::size_t>(device)]; }

 private:
  std::vector<bool> waiting_;
  OptimizerMode mode_;
  std::size_t arrived_ = 0;
  SimTime latest_ = 0;
};

}  // namespace pipeplan::sim
