#include "calibrate/replay_plan.hpp"

#include "lower/lowering.hpp"
#include "model/error.hpp"
#include "validate/deadlock_text.hpp"

namespace pipeplan {

ReplayPlan plan_replay(const Schedule& schedule, const CostModel& costs) {
  ReplayPlan plan;
  plan.lowered = lower(schedule, LowerPolicy::Timed, &costs, plan.mode);
  plan.program = replay_program(plan.lowered);
  CommSimResult timed = simulate_with_comm(plan.lowered, costs, plan.mode);
  if (timed.result.deadlocked()) {
    // The timed lowering orders every post by one global key, so this is a bug, not an input.
    throw Error(schedule.name + ": the replay's lowering deadlocks under the " +
                std::string(comm_mode_name(plan.mode)) + " mode" +
                (timed.stuck.empty() ? "" : ": " + describe(timed.stuck.front())));
  }
  plan.predicted = std::move(timed.result);
  return plan;
}

}  // namespace pipeplan
