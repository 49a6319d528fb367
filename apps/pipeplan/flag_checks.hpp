#pragma once
// Flags that do not apply are errors, not silently ignored: `zbv --chunks 3` must not quietly
// build V = 2. These helpers say which of a set of flags the user gave.
#include <CLI/CLI.hpp>

#include <array>
#include <span>
#include <string>

namespace pipeplan::cli {

/// The first of `flags` given on the command line of `sub` ("" when none was): e.g.
/// first_given(sub, {"--profile", "--costs"}).
[[nodiscard]] std::string first_given(const CLI::App& sub, std::span<const char* const> flags);

/// CLI11's Range for a floating-point flag, by finite_within (model/finite.hpp): CLI::Range
/// lets NaN through, since every comparison with it is false, and --gemm-efficiency nan once
/// wrote "f_ms": null. "expected a number from LEAST to MOST, got TEXT".
[[nodiscard]] CLI::Validator finite_range(double least, double most);

/// The flags of add_cost_options and add_sim_options, for first_given.
inline constexpr std::array<const char*, 4> kCostFlags = {"--profile", "--costs", "--transfer", "--memory"};
inline constexpr std::array<const char*, 2> kSimFlags = {"--iterations", "--optimizer-mode"};

}  // namespace pipeplan::cli
