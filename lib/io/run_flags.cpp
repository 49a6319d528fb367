#include "io/run_flags.hpp"

#include "io/printable.hpp"
#include "model/error.hpp"
#include "sim/run_limits.hpp"
#include "validate/deadlock_text.hpp"

namespace pipeplan {

SimOptions sim_options_of(int iterations, const std::string& optimizer_mode) {
  if (iterations < 1 || iterations > kMaxIterations) {
    throw FlagError("--iterations: expected 1 to " + std::to_string(kMaxIterations) + " steps, got " +
                    std::to_string(iterations));
  }
  const std::optional<OptimizerMode> mode = parse_optimizer_mode(optimizer_mode);
  if (!mode) {
    throw FlagError("--optimizer-mode: expected " + enum_choices(kOptimizerModes) + ", got '" + optimizer_mode + "'");
  }
  SimOptions options;
  options.iterations = iterations;
  options.optimizer_mode = *mode;
  return options;
}

CommMode comm_mode(const CommFlags& flags) {
  const std::optional<CommMode> mode = parse_comm_mode(flags.mode);
  if (!mode) throw FlagError("--comm: expected " + enum_choices(kCommModes) + ", got '" + flags.mode + "'");
  return *mode;
}

LowerPolicy parse_policy_flag(const std::string& name) {
  const std::optional<LowerPolicy> policy = parse_policy(name);
  if (!policy) throw FlagError("--policy: expected " + enum_choices(kLowerPolicies) + ", got '" + name + "'");
  return *policy;
}

std::optional<LowerPolicy> policy_flag(const std::string& policy, const LoweredSchedule& file) {
  if (policy.empty()) return std::nullopt;
  if (has_communication(file)) throw FlagError("--policy: the file has its own sends and receives; drop --policy");
  return parse_policy_flag(policy);
}

namespace {

// --policy given under --comm overlap, which has no lowering to place.
void refuse_policy_under_overlap(CommMode mode, const CommFlags& flags) {
  if (mode == CommMode::Overlap && !flags.policy.empty()) {
    throw FlagError("--policy: applies to --comm blocking or rendezvous");
  }
}

}  // namespace

std::optional<LowerPolicy> comm_policy(const CommFlags& flags) {
  refuse_policy_under_overlap(comm_mode(flags), flags);
  if (flags.policy.empty()) return std::nullopt;
  return parse_policy_flag(flags.policy);
}

CommRun comm_run(const CommFlags& flags, const LoweredSchedule& file, const SimOptions& options) {
  const CommMode mode = comm_mode(flags);
  refuse_policy_under_overlap(mode, flags);
  return {mode, policy_flag(flags.policy, file), options};
}

LoweredSchedule lowering_for(const LoweredSchedule& file, const std::string& policy, const CostModel& costs) {
  return lowering_to_run(file, policy_flag(policy, file), costs, CommMode::Rendezvous);
}

std::string run_limit_text(const RunLimitError& error) {
  if (error.limit == RunLimit::Iterations) return std::string("--") + error.what();
  if (error.limit == RunLimit::Memory) {
    return std::string("the memory (--memory or --profile): ") + error.what() + "; give smaller sizes";
  }
  return std::string("the costs (--costs, --transfer or --profile) with --iterations: ") + error.what() +
         "; give smaller times or fewer iterations";
}

LoweredRun simulate_under(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                          const CommFlags& flags, const std::string& what) {
  const CommRun how = comm_run(flags, file, options);
  LoweredRun run;
  try {  // "the schedule cannot be timed: ..." names the file it came from
    run = simulate_lowered(file, costs, how);
  } catch (const RunLimitError& e) {
    throw Error(run_limit_text(e));
  } catch (const Error& e) {
    throw Error(what + ": " + e.what());
  }
  const std::vector<StuckDevice>& stuck = run.run.stuck;
  if (!stuck.empty()) {
    std::string message = what + ": deadlocks under " + flags.mode + " communication: " + describe(stuck.front());
    if (!run.run.result.deadlock_cycle.empty()) message += "; cycle: " + describe_cycle(run.run.result.deadlock_cycle);
    throw Error(message + " ('pipeplan validate --comm " + flags.mode + "' lists every stuck device)");
  }
  return run;
}

std::string describe_comm(const LoweredRun& run) {
  if (run.mode == CommMode::Overlap) return "communication: overlap";
  const std::string& policy = run.lowering.policy;
  const std::string lowering =
      run.from_file ? (policy.empty() ? "the file's" : printable(policy) + ", the file's") : policy;
  return "communication: " + std::string(comm_mode_name(run.mode)) + ", lowered with " + lowering;
}

}  // namespace pipeplan
