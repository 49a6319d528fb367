#pragma once
// The flags that name a generated schedule (generate, compare) and the lookup of a generator
// by name, with the closest names when it is unknown.
#include <CLI/CLI.hpp>

#include <string>

#include "schedules/generator.hpp"

namespace pipeplan::cli {

/// Registers --stages P (required), --microbatches M (required), --chunks V (0 when absent:
/// each generator's default) and --group N.
void add_request_options(CLI::App& sub, GenerateRequest& request);

/// The schedule `generator` builds for `request`, with the chunks it takes (Generator::chunks_for).
[[nodiscard]] Schedule generate_for(const Generator& generator, GenerateRequest request);

/// The generator called `name`; throws UsageError listing the closest names when there is none.
[[nodiscard]] const Generator& generator_named(const std::string& name);

}  // namespace pipeplan::cli
