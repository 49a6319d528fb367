#pragma once
// The flags that ask a generator for a schedule (generate, compare). The request itself, its
// checks and the lookup by name are lib/io/generate_request.hpp's (the Python package asks the same).
#include <CLI/CLI.hpp>

#include <span>
#include <vector>

#include "cost_options.hpp"
#include "io/generate_request.hpp"

namespace pipeplan::cli {

/// Registers --stages P (required), --microbatches M (required), --chunks V (0 when absent:
/// each generator's default), --group N and --memory-limit SIZE[,SIZE...].
void add_request_options(CLI::App& sub, RequestFlags& flags);

/// The --memory-limit sizes: none, one for every device, or one per device. Throws FlagError.
[[nodiscard]] std::vector<Bytes> memory_limits(const RequestFlags& flags);

/// pipeplan::check_flags_apply with the flags given on `sub` (counted, not compared with their
/// defaults); `generating` also checks --optimizer-mode and --iterations.
void check_flags_apply(const CLI::App& sub, std::span<const Generator* const> chosen, const RequestFlags& flags,
                       bool generating);

}  // namespace pipeplan::cli
