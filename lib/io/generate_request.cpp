#include "io/generate_request.hpp"

#include <algorithm>
#include <utility>

#include "model/error.hpp"

namespace pipeplan {

namespace {

// "zb, zbv-auto": the generators for which `takes` holds.
template <typename Predicate>
std::string names_where(Predicate takes) {
  std::string out;
  for (const Generator& g : generators()) {
    if (takes(g)) out += (out.empty() ? "" : ", ") + std::string(g.name);
  }
  return out.empty() ? "none" : out;
}

std::string names_of(std::span<const Generator* const> chosen) {
  std::string out;
  for (const Generator* g : chosen) out += (out.empty() ? "" : ", ") + std::string(g->name);
  return out;
}

template <typename Predicate>
bool any_of(std::span<const Generator* const> chosen, Predicate takes) {
  return std::any_of(chosen.begin(), chosen.end(), [&](const Generator* g) { return takes(*g); });
}

std::string chunk_range(const Generator& g) {
  if (g.min_chunks == g.max_chunks) return "V = " + std::to_string(g.min_chunks) + " only";
  return "V from " + std::to_string(g.min_chunks) + " to " + std::to_string(g.max_chunks);
}

}  // namespace

void check_flags_apply(std::span<const Generator* const> chosen, const RequestFlags& flags, const GivenFlags& given,
                       bool generating) {
  // Counted, not compared with a default: --chunks 1 given to zbv is as wrong as --chunks 3.
  const int chunks = given.chunks ? flags.chunks : 0;
  const std::string which = chosen.size() == 1 ? std::string(chosen.front()->name) : "none of " + names_of(chosen);
  if (!any_of(chosen, [&](const Generator& g) { return g.takes_chunks(chunks); })) {
    const std::string takers = names_where([&](const Generator& g) { return chunks > 0 && g.takes_chunks(chunks); });
    throw FlagError("--chunks " + std::to_string(chunks) + ": " + which + " builds " +
                    (chosen.size() == 1 ? chunk_range(*chosen.front()) : "V = " + std::to_string(chunks)) +
                    "; the schedules that build V = " + std::to_string(chunks) + ": " + takers);
  }
  if (given.group && !any_of(chosen, [](const Generator& g) { return g.takes_group; })) {
    throw FlagError("--group: " + which + " builds no micro-batch groups; it applies to " +
                    names_where([](const Generator& g) { return g.takes_group; }));
  }
  const bool limited = !flags.memory_limit.empty();
  for (const Generator* g : chosen) {
    if (g->memory_limit == MemoryLimitUse::Required && !limited) {
      const std::string own =
          names_where([](const Generator& o) { return o.uses_costs && o.memory_limit != MemoryLimitUse::Required; });
      throw FlagError(std::string(g->name) +
                      ": needs a memory limit (--memory-limit SIZE); these choose their own: " + own);
    }
  }
  if (!generating) return;
  const std::string& cost_flag = given.cost_flag;
  if (limited && chosen.front()->memory_limit == MemoryLimitUse::None) {
    throw FlagError("--memory-limit: " + which + " plans without a memory limit; it applies to " +
                    names_where([](const Generator& g) { return g.memory_limit != MemoryLimitUse::None; }) +
                    " ('pipeplan validate --memory-limit' checks any schedule against one)");
  }
  if (!cost_flag.empty() && !chosen.front()->uses_costs) {
    throw FlagError(cost_flag + ": " + which + " is built without costs; they apply to " +
                    names_where([](const Generator& g) { return g.uses_costs; }) +
                    " ('pipeplan simulate' times any schedule with them)");
  }
  if (!given.objective_flag.empty() && !chosen.front()->uses_costs) {
    throw FlagError(given.objective_flag + " applies to the automatic schedules (" + automatic_generator_names() +
                    "), not to " + std::string(chosen.front()->name) + ", whose order does not depend on costs");
  }
}

Generated generate_for(const Generator& generator, const RequestFlags& flags, const CostModel& given,
                       const CostFlags& cost_options, const SimOptions& objective) {
  GenerateRequest request = flags.request;
  request.objective = objective.optimizer_mode;
  request.iterations = objective.iterations;
  request.chunks = generator.chunks_for(flags.chunks);
  request.memory_limit = parse_memory_limits(flags.memory_limit, request.devices);
  CostModel costs = fit_costs(given, cost_options, request.devices * request.chunks, request.devices);
  request.costs = &costs;
  Schedule schedule = generator.generate(request);
  return {std::move(schedule), std::move(costs)};
}

const Generator& generator_named(const std::string& name) {
  if (const Generator* g = find_generator(name)) return *g;
  std::string message = "unknown schedule '" + name + "'";
  std::vector<std::string> close = closest_generator_names(name, 3);
  if (!close.empty()) {
    message += "; did you mean";
    for (std::size_t i = 0; i < close.size(); ++i) message += (i == 0 ? " '" : ", '") + close[i] + "'";
    message += "?";
  }
  throw FlagError(message + " ('pipeplan list' shows them all)");
}

}  // namespace pipeplan
