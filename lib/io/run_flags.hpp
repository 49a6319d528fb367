#pragma once
// How a schedule is run, as a user writes it: the communication mode and lowering policy
// (docs/model.md, "Communication"), the optimizer mode and the iterations. The command line's
// --comm, --policy, --optimizer-mode and --iterations and the Python package's keyword arguments
// read them here alone, so both refuse the same values with the same messages.
#include <optional>
#include <string>

#include "costs/cost_model.hpp"
#include "lower/simulate_lowered.hpp"
#include "sim/run_limits.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// The most back-to-back training steps a run simulates.
inline constexpr int kMaxIterations = 10000;

struct CommFlags {
  std::string mode = "overlap";
  std::string policy;
};

/// The steady state's options: FlagError for iterations outside 1 .. kMaxIterations or an
/// optimizer mode that is not one of kOptimizerModes' names (any case).
[[nodiscard]] SimOptions sim_options_of(int iterations, const std::string& optimizer_mode);

/// The mode named by `flags`; FlagError naming --comm and the choices for any other name.
[[nodiscard]] CommMode comm_mode(const CommFlags& flags);

/// --policy's value as a policy; FlagError naming the choices for any other name.
[[nodiscard]] LowerPolicy parse_policy_flag(const std::string& name);

/// --policy for a schedule without sends and receives of its own: none when not given; FlagError
/// under --comm overlap, or for an unknown name.
[[nodiscard]] std::optional<LowerPolicy> comm_policy(const CommFlags& flags);

/// --policy for `file`: none when not given; FlagError when the file has its own sends and
/// receives, or for an unknown name.
[[nodiscard]] std::optional<LowerPolicy> policy_flag(const std::string& policy, const LoweredSchedule& file);

/// What simulate_lowered runs for the flags: FlagError for --policy under --comm overlap, and
/// as policy_flag says.
[[nodiscard]] CommRun comm_run(const CommFlags& flags, const LoweredSchedule& file, const SimOptions& options);

/// The lowering export and the Python package's CSV write (lowering_to_run with --policy,
/// checked), placed for a runtime that posts its receives ahead, as PyTorch's CSV runtime does.
[[nodiscard]] LoweredSchedule lowering_for(const LoweredSchedule& file, const std::string& policy,
                                           const CostModel& costs);

/// A run over its limits (sim/run_limits.hpp) in the flags' words: "--iterations: ..." for too
/// many iterations, the cost flags and --iterations for a run too long to time; never a file's
/// key, which the simulator's "iterations: ..." read as once.
[[nodiscard]] std::string run_limit_text(const RunLimitError& error);

/// simulate_lowered under the flags, once. Throws Error naming `what` when it deadlocks under
/// communication, with the first stuck device and the cycle; a deadlock under overlap is the
/// caller's to report.
[[nodiscard]] LoweredRun simulate_under(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                                        const CommFlags& flags, const std::string& what);

/// "communication: rendezvous, lowered with timed" (or "communication: overlap").
[[nodiscard]] std::string describe_comm(const LoweredRun& run);

}  // namespace pipeplan
