#pragma once
// The cost flags that simulate, validate, compare and generate share: --profile FILE, or
// --costs F,B,W with --transfer MS (or one per stage boundary, MS,MS,...) and --memory A_F,A_W.
// What their values mean is lib/io/cost_flags.hpp's (the Python package reads the same texts).
#include <CLI/CLI.hpp>

#include "io/cost_flags.hpp"

namespace pipeplan::cli {

using CostOptions = CostFlags;

/// Registers the cost flags on `sub`.
void add_cost_options(CLI::App& sub, CostOptions& options);

}  // namespace pipeplan::cli
