#pragma once
// A schedule asked of a generator by name, as the command line's generate and compare and the
// Python package's generate ask it: the lookup with the closest names, the checks that every
// value given applies to the generator chosen, and the generation with the costs fitted to the
// chunks it builds.
#include <span>
#include <string>

#include "io/cost_flags.hpp"
#include "schedules/generator.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct RequestFlags {
  GenerateRequest request;   ///< its chunks are filled in per generator by generate_for
  int chunks = 0;            ///< --chunks V; 0 when absent: each generator's default
  std::string memory_limit;  ///< SIZE, or SIZE,SIZE,... one per device
};

/// Which of the optional values the caller gave (a default given explicitly counts as given).
struct GivenFlags {
  bool chunks = false;
  bool group = false;
  std::string cost_flag;       ///< the first cost value given ("--profile", "--costs", ...), or empty
  std::string objective_flag;  ///< "--optimizer-mode" or "--iterations" when given, or empty
};

/// A generated schedule and the costs it was planned with (the given costs, split into the
/// schedule's chunks).
struct Generated {
  Schedule schedule;
  CostModel costs;
};

/// The schedule `generator` builds for the flags, with the chunks it takes
/// (Generator::chunks_for), the costs `given` (from given_costs, so a comparison reads its profile
/// once) fitted to those chunks, and the memory limit; an automatic schedule minimises the step
/// time under `objective` (its optimizer mode and iterations). Throws FlagError for a malformed
/// value, Error when the generator refuses.
[[nodiscard]] Generated generate_for(const Generator& generator, const RequestFlags& flags, const CostModel& given,
                                     const CostFlags& costs, const SimOptions& objective = {});

/// Refuses (FlagError, naming the schedules that take it) a value given that none of `chosen`
/// uses: chunks V that it does not build, a group without a grouped schedule, and, for `generate`
/// alone (`generating`), a memory limit to a schedule that plans without one, the costs to one
/// built without costs, and an objective to one whose order does not depend on costs. A missing
/// memory limit that one of them requires is refused too. Reads only the registry's fields, so a
/// new generator needs no change here.
void check_flags_apply(std::span<const Generator* const> chosen, const RequestFlags& flags, const GivenFlags& given,
                       bool generating);

/// The generator called `name`, whatever its case; throws FlagError listing the closest names
/// when there is none.
[[nodiscard]] const Generator& generator_named(const std::string& name);

}  // namespace pipeplan
