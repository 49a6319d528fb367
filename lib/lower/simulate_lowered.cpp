#include "lower/simulate_lowered.hpp"

#include "model/error.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

LoweredSchedule lowering_to_run(const LoweredSchedule& file, std::optional<LowerPolicy> policy, const CostModel& costs,
                                CommMode mode) {
  if (has_communication(file)) {
    if (policy) throw Error("the file has its own sends and receives: a lowering policy does not apply");
    return file;
  }
  return lower(file.schedule, policy.value_or(LowerPolicy::Timed), &costs, mode);
}

LoweredRun simulate_lowered(const LoweredSchedule& file, const CostModel& costs, const CommRun& how) {
  LoweredRun out;
  out.mode = how.mode;
  if (how.mode == CommMode::Overlap) {
    if (how.policy) throw Error("a lowering policy applies to blocking or rendezvous communication");
    out.run.result = simulate(file.schedule, costs, how.options);
    return out;
  }
  out.from_file = has_communication(file);
  out.lowering = lowering_to_run(file, how.policy, costs, how.mode);
  out.run = simulate_with_comm(out.lowering, costs, how.mode, how.options);
  return out;
}

}  // namespace pipeplan
