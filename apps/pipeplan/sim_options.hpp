#pragma once
// The flags of the steady state that simulate and compare share: --iterations K and
// --optimizer-mode sync|post-validation.
#include <CLI/CLI.hpp>

#include <string>

#include "io/run_flags.hpp"
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

}  // namespace pipeplan::cli
