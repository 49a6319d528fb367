#pragma once
// The communication flags of simulate, compare and validate: --comm overlap|blocking|rendezvous
// and --policy for schedules that are not lowered yet (docs/model.md, "Communication"). The
// --policy checks live here alone.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "costs/cost_model.hpp"
#include "lower/simulate_lowered.hpp"

namespace pipeplan::cli {

struct CommFlags {
  std::string mode = "overlap";
  std::string policy;
};

/// Registers --comm and --policy on `sub`.
void add_comm_options(CLI::App& sub, CommFlags& flags);

[[nodiscard]] CommMode comm_mode(const CommFlags& flags);

/// --policy's value as a policy; UsageError naming the choices for any other name.
[[nodiscard]] LowerPolicy parse_policy_flag(const std::string& name);

/// --policy for `file`: none when not given; UsageError when the file has its own sends and
/// receives, or for an unknown name.
[[nodiscard]] std::optional<LowerPolicy> policy_flag(const std::string& policy, const LoweredSchedule& file);

/// What simulate_lowered runs for the flags: UsageError for --policy under --comm overlap, and
/// as policy_flag says.
[[nodiscard]] CommRun comm_run(const CommFlags& flags, const LoweredSchedule& file, const SimOptions& options);

/// The lowering validate and export use (lowering_to_run with --policy, checked).
[[nodiscard]] LoweredSchedule lowering_for(const LoweredSchedule& file, const std::string& policy,
                                           const CostModel& costs);

/// simulate_lowered under the flags, once. Throws Error naming `what` when it deadlocks under
/// communication, with the first stuck device and the cycle; a deadlock under overlap is the
/// caller's to report.
[[nodiscard]] LoweredRun simulate_under(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                                        const CommFlags& flags, const std::string& what);

/// "communication: rendezvous, lowered with timed" (or "communication: overlap").
[[nodiscard]] std::string describe_comm(const LoweredRun& run);

}  // namespace pipeplan::cli
