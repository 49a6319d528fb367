#include "comm_options.hpp"

#include "command.hpp"
#include "io/printable.hpp"
#include "io/schedule_json.hpp"
#include "model/error.hpp"
#include "sim/simulator.hpp"

namespace pipeplan::cli {

void add_comm_options(CLI::App& sub, CommFlags& flags) {
  sub.add_option("--comm", flags.mode,
                 "overlap: transfers beside compute; blocking: on both ends' compute stream; rendezvous: a send "
                 "completes when the peer posts its receive")
      ->type_name("MODE")
      ->transform(CLI::IsMember({"overlap", "blocking", "rendezvous"}, CLI::ignore_case))
      ->capture_default_str();
  sub.add_option("--policy", flags.policy,
                 "With blocking or rendezvous: where sends and receives go (just-before, early, megatron, batched, "
                 "timed; default timed) unless the file has its own")
      ->type_name("NAME");
}

CommMode comm_mode(const CommFlags& flags) { return *parse_comm_mode(flags.mode); }

LoweredSchedule lowering_for(const LoweredSchedule& file, const CommFlags& flags, const CostModel& costs) {
  if (has_communication(file)) {
    if (!flags.policy.empty()) throw UsageError("--policy: the file has its own sends and receives; drop --policy");
    return file;
  }
  const std::string name = flags.policy.empty() ? "timed" : flags.policy;
  auto policy = parse_policy(name);
  if (!policy) {
    throw UsageError("--policy: expected just-before, early, megatron, batched or timed, got '" + name + "'");
  }
  return lower(file.schedule, *policy, &costs);
}

SimResult simulate_under(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                         const CommFlags& flags, const std::string& what) {
  const CommMode mode = comm_mode(flags);
  if (mode == CommMode::Overlap && !flags.policy.empty()) {
    throw UsageError("--policy: applies to --comm blocking or rendezvous");
  }
  CommSimResult run;
  try {  // "the schedule cannot be timed: ..." names the file it came from
    if (mode == CommMode::Overlap) return simulate(file.schedule, costs, options);
    run = simulate_with_comm(lowering_for(file, flags, costs), costs, mode, options);
  } catch (const Error& e) {
    throw Error(what + ": " + e.what());
  }
  if (!run.stuck.empty()) {
    std::string message = what + ": deadlocks under " + flags.mode + " communication: " + run.stuck.front();
    if (!run.cycle.empty()) message += "; cycle: " + run.cycle;
    throw Error(message + " ('pipeplan validate --comm " + flags.mode + "' lists every stuck device)");
  }
  return std::move(run.result);
}

std::string describe_comm(const LoweredSchedule& file, const CommFlags& flags) {
  if (comm_mode(flags) == CommMode::Overlap) return "communication: overlap";
  const std::string lowering = has_communication(file)
                                   ? (file.policy.empty() ? "the file's" : printable(file.policy) + ", the file's")
                                                       : (flags.policy.empty() ? "timed" : flags.policy);
  return "communication: " + flags.mode + ", lowered with " + lowering;
}

}  // namespace pipeplan::cli
