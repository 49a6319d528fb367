#pragma once
// The flags that ask a generator for a schedule (generate, compare) and the lookup of a
// generator by name, with the closest names when it is unknown.
#include <CLI/CLI.hpp>

#include <span>
#include <string>

#include "cost_options.hpp"
#include "schedules/generator.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::cli {

struct RequestFlags {
  GenerateRequest request;   ///< its chunks are filled in per generator by generate_for
  int chunks = 0;            ///< --chunks V; 0 when absent: each generator's default
  std::string memory_limit;  ///< SIZE, or SIZE,SIZE,... one per device
};

/// Registers --stages P (required), --microbatches M (required), --chunks V (0 when absent:
/// each generator's default), --group N and --memory-limit SIZE[,SIZE...].
void add_request_options(CLI::App& sub, RequestFlags& flags);

/// The --memory-limit sizes: none, one for every device, or one per device. Throws UsageError.
[[nodiscard]] std::vector<Bytes> memory_limits(const RequestFlags& flags);

/// A generated schedule and the costs it was planned with (the flags' costs, split into the
/// schedule's chunks).
struct Generated {
  Schedule schedule;
  CostModel costs;
};

/// The schedule `generator` builds for the flags, with the chunks it takes
/// (Generator::chunks_for), the costs `given` (from given_costs, so a comparison reads its profile
/// once) fitted to those chunks, and the memory limit; an automatic schedule minimises the step
/// time under `objective` (its optimizer mode and iterations). Throws UsageError for a malformed
/// flag, Error when the generator refuses.
[[nodiscard]] Generated generate_for(const Generator& generator, const RequestFlags& flags, const CostModel& given,
                                     const CostOptions& costs, const SimOptions& objective = {});

/// Refuses (UsageError, naming the schedules that take it) a flag given on `sub` that none of
/// `chosen` uses: --chunks V that it does not build, --group without a grouped schedule, and,
/// for `generate` alone (`generating`), --memory-limit to a schedule that plans without one and
/// the cost flags to one built without costs (compare reports the limit and times every
/// schedule with the costs). A missing --memory-limit that one of them requires is refused too.
/// Reads only the registry's fields, so a new generator needs no change here.
void check_flags_apply(const CLI::App& sub, std::span<const Generator* const> chosen, const RequestFlags& flags,
                       bool generating);

/// The generator called `name`, whatever its case; throws UsageError listing the closest names
/// when there is none.
[[nodiscard]] const Generator& generator_named(const std::string& name);

}  // namespace pipeplan::cli
