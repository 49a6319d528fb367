#include "comm_options.hpp"

#include "command.hpp"
#include "enum_flags.hpp"
#include "io/printable.hpp"
#include "model/error.hpp"
#include "sim_options.hpp"
#include "validate/deadlock_text.hpp"

namespace pipeplan::cli {

void add_comm_options(CLI::App& sub, CommFlags& flags) {
  sub.add_option("--comm", flags.mode, enum_help(kCommModes))
      ->type_name("MODE")
      ->transform(enum_choices_of(kCommModes))
      ->capture_default_str();
  sub.add_option("--policy", flags.policy,
                 "With blocking or rendezvous: where sends and receives go (" + enum_list(kLowerPolicies) +
                     "; default timed) unless the file has its own")
      ->type_name("NAME");
}

CommMode comm_mode(const CommFlags& flags) {
  return *parse_comm_mode(flags.mode);
}

LowerPolicy parse_policy_flag(const std::string& name) {
  const std::optional<LowerPolicy> policy = parse_policy(name);
  if (!policy) throw UsageError("--policy: expected " + enum_choices(kLowerPolicies) + ", got '" + name + "'");
  return *policy;
}

std::optional<LowerPolicy> policy_flag(const std::string& policy, const LoweredSchedule& file) {
  if (policy.empty()) return std::nullopt;
  if (has_communication(file)) throw UsageError("--policy: the file has its own sends and receives; drop --policy");
  return parse_policy_flag(policy);
}

CommRun comm_run(const CommFlags& flags, const LoweredSchedule& file, const SimOptions& options) {
  const CommMode mode = comm_mode(flags);
  if (mode == CommMode::Overlap && !flags.policy.empty()) {
    throw UsageError("--policy: applies to --comm blocking or rendezvous");
  }
  return {mode, policy_flag(flags.policy, file), options};
}

LoweredSchedule lowering_for(const LoweredSchedule& file, const std::string& policy, const CostModel& costs) {
  return lowering_to_run(file, policy_flag(policy, file), costs);
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

}  // namespace pipeplan::cli
