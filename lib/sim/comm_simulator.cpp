#include "sim/comm_simulator.hpp"

#include <string>

#include "model/error.hpp"
#include "model/lowering_problems.hpp"
#include "model/structure.hpp"
#include "sim/comm_simulation.hpp"
#include "sim/lower_bound.hpp"
#include "sim/run_limits.hpp"

namespace pipeplan {

CommSimResult simulate_with_comm(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode,
                                 const SimOptions& options) {
  const Schedule& s = lowered.schedule;
  std::vector<Problem> problems = find_structure_problems(s);
  if (!allows_timing(problems)) throw Error("the schedule cannot be timed: " + problems.front().message);
  check_dimensions(costs, s.stages, s.devices);
  check_costs(costs);
  problems = lowering_problems(lowered);
  if (!problems.empty()) {
    throw Error("the lowering cannot run: " + problems.front().message +
                (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more problems)" : ""));
  }
  if (const std::optional<RunLimitProblem> limit = run_limit_problem(s, costs, options)) throw RunLimitError(*limit);
  if (mode == CommMode::Overlap) throw Error("the overlap mode is simulate(): it needs no lowering");
  CommSimResult out = sim::CommSimulation(lowered, costs, mode, options).run();
  out.result.lower_bound = step_lower_bound(s, costs, options.optimizer_mode);
  return out;
}

}  // namespace pipeplan
