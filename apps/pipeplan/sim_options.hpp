#pragma once
// The flags of the steady state that simulate and compare share: --iterations K and
// --optimizer-mode sync|post-validation.
#include <CLI/CLI.hpp>

#include <string>

#include "sim/run_limits.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::cli {

struct SimFlags {
  int iterations = 1;
  std::string optimizer_mode = "sync";
};

/// Registers --iterations and --optimizer-mode on `sub`.
void add_sim_options(CLI::App& sub, SimFlags& flags);

/// The simulator's options from the parsed flags.
[[nodiscard]] SimOptions sim_options(const SimFlags& flags);

/// A run over its limits (sim/run_limits.hpp) in the flags' words: "--iterations: ..." for too
/// many iterations, the cost flags and --iterations for a run too long to time; never a file's
/// key, which the simulator's "iterations: ..." read as once.
[[nodiscard]] std::string run_limit_text(const RunLimitError& error);

}  // namespace pipeplan::cli
