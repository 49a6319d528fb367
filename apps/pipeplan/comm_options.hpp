#pragma once
// The communication flags of simulate, compare and validate: --comm overlap|blocking|rendezvous
// and --policy for schedules that are not lowered yet (docs/model.md, "Communication").
#include <CLI/CLI.hpp>

#include <string>

#include "costs/cost_model.hpp"
#include "lower/lowering.hpp"
#include "sim/comm_simulator.hpp"

namespace pipeplan::cli {

struct CommFlags {
  std::string mode = "overlap";
  std::string policy;
};

/// Registers --comm and --policy on `sub`.
void add_comm_options(CLI::App& sub, CommFlags& flags);

[[nodiscard]] CommMode comm_mode(const CommFlags& flags);

/// What runs: the file's own sends and receives when it has them (UsageError if --policy is
/// also given), otherwise `schedule` lowered with --policy (default timed, ordered with `costs`).
[[nodiscard]] LoweredSchedule lowering_for(const LoweredSchedule& file, const CommFlags& flags, const CostModel& costs);

/// Simulates under the flags' mode: simulate() for overlap, simulate_with_comm otherwise.
/// Throws Error naming `what` when it deadlocks, with each stuck device and the cycle.
[[nodiscard]] SimResult simulate_under(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                                       const CommFlags& flags, const std::string& what);

/// "communication: rendezvous, lowered with timed" (or "overlap").
[[nodiscard]] std::string describe_comm(const LoweredSchedule& file, const CommFlags& flags);

}  // namespace pipeplan::cli
