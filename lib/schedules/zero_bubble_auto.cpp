// The automatic zero-bubble schedules (Qi et al., ICLR 2024, section 3), under a per-device
// memory limit, for per-stage costs, minimising the step under the optimizer mode asked for.
// The paper runs its greedy heuristic with each combination of on/off choices and keeps the
// best. Here the paper's own passes (and the authors' ZB-V heuristic on the V) compete with
// greedy passes of our own and the handcrafted schedules that fit the same memory, so the
// result is never worse than any of them; a local search then walks from the best
// (docs/schedules.md, "Automatic").
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "model/error.hpp"
#include "model/placement.hpp"
#include "model/size_string.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"
#include "schedules/zb_greedy.hpp"
#include "schedules/zb_paper_greedy.hpp"
#include "schedules/zb_search.hpp"
#include "schedules/zbv_paper_greedy.hpp"

namespace pipeplan {

namespace {

enum class Limit { Explicit, ExplicitOrOneP, OneP, TwoP };

constexpr int kSearchIterations = 4;

// When the costs carry no activation memory, the presets count micro-batches instead: each
// stage's forward holds one unit, so a device of V chunks holds V units per micro-batch.
CostModel working_costs(const CostModel& costs, bool counted) {
  CostModel working = costs;
  if (!counted) return working;
  for (StageCost& s : working.stages) {
    s.activation_bytes = 1;
    s.w_activation_bytes = 0;
  }
  for (DeviceCost& d : working.devices) d.static_memory_bytes = 0;
  return working;
}

std::vector<Bytes> device_limits(std::string_view name, const GenerateRequest& r, const Schedule& shape,
                                 const CostModel& working, Limit limit) {
  const auto devices = static_cast<std::size_t>(r.devices);
  std::vector<Bytes> activations(devices, 0);  // one micro-batch on every stage of the device
  for (int s = 0; s < shape.stages; ++s) {
    activations[static_cast<std::size_t>(shape.placement[static_cast<std::size_t>(s)])] +=
        working.stages[static_cast<std::size_t>(s)].activation_bytes;
  }
  std::vector<Bytes> out(devices);
  if (limit == Limit::ExplicitOrOneP) limit = r.memory_limit.empty() ? Limit::OneP : Limit::Explicit;
  for (std::size_t d = 0; d < devices; ++d) {
    const Bytes base = working.devices[d].static_memory_bytes;
    if (limit == Limit::Explicit) {
      if (r.memory_limit.empty()) {
        throw Error(std::string(name) + ": needs a memory limit (--memory-limit), or use a preset: " +
                    std::string(name) + "-1p, " + std::string(name) + "-2p");
      }
      out[d] = r.memory_limit.size() == 1 ? r.memory_limit.front() : r.memory_limit.at(d);
    } else {
      out[d] = base + (limit == Limit::OneP ? 1 : 2) * r.devices * activations[d];
    }
    if (out[d] < base + activations[d]) {
      throw Error(std::string(name) + ": no schedule fits: device " + std::to_string(d) + " needs at least " +
                  format_size(base + activations[d]) + " (static memory " + format_size(base) +
                  " plus one micro-batch's activations on each of its stages), the limit is " + format_size(out[d]));
    }
  }
  return out;
}

// The limits the greedy passes plan under: the real ones, then, while the problem is small
// enough for the budget, tighter ones (3/4 and 1/2 of the room above static memory, never
// below one micro-batch). A pass that plans with less memory warms up less and holds fewer W
// back; on the longest span that is sometimes better, and every such schedule fits the real limit.
std::vector<std::vector<Bytes>> planning_limits(const Schedule& shape, const CostModel& working,
                                                const std::vector<Bytes>& limits, long long budget) {
  std::vector<std::vector<Bytes>> out = {limits};
  const auto ops = 3 * static_cast<long long>(shape.stages) * shape.microbatches;
  if (ops * 24 * 3 > budget) return out;
  std::vector<Bytes> least(limits.size(), 0);
  for (int s = 0; s < shape.stages; ++s) {
    least[static_cast<std::size_t>(shape.placement[static_cast<std::size_t>(s)])] +=
        working.stages[static_cast<std::size_t>(s)].activation_bytes;
  }
  for (int quarters : {3, 2}) {
    std::vector<Bytes> tighter(limits.size());
    for (std::size_t d = 0; d < limits.size(); ++d) {
      const Bytes base = working.devices[d].static_memory_bytes;
      tighter[d] = std::max(base + least[d], base + (limits[d] - base) * quarters / 4);
    }
    if (tighter != out.back()) out.push_back(std::move(tighter));
  }
  return out;
}

using Handcrafted = Schedule (*)(const GenerateRequest&);

// Every handcrafted schedule whose registry row competes in `search` (Generator::candidate_of),
// in the rows' rank; those that break the limit or do not apply to P and M drop out.
std::vector<Handcrafted> handcrafted_candidates(CandidateOf search) {
  std::vector<Handcrafted> out;
  for (const Generator* g : candidates_of(search)) out.push_back(g->generate);
  return out;
}
// `vee_paper`: the authors' ZB-V heuristic (its four choices) joins the candidates; for the V
// placement only, where it applies.
Schedule auto_schedule(std::string_view name, const GenerateRequest& r, std::vector<int> placement, Limit limit,
                       const std::vector<Handcrafted>& others, bool vee_paper = false) {
  if (r.costs == nullptr) {
    throw Error(std::string(name) + ": needs costs to plan with: give --profile FILE or --costs F,B,W");
  }
  Schedule shape = empty_schedule(name, r, std::move(placement));
  check_dimensions(*r.costs, shape.stages, shape.devices);
  check_costs(*r.costs);
  if (!r.memory_limit.empty() && r.memory_limit.size() != 1 && std::cmp_not_equal(r.memory_limit.size(), r.devices)) {
    throw Error(std::string(name) + ": expected one memory limit, or one per device (" + std::to_string(r.devices) +
                "), got " + std::to_string(r.memory_limit.size()));
  }
  bool counted = std::all_of(r.costs->stages.begin(), r.costs->stages.end(),
                             [](const StageCost& s) { return s.activation_bytes == 0; });
  if (counted && !r.memory_limit.empty()) counted = false;  // a limit in bytes means bytes
  const CostModel working = working_costs(*r.costs, counted);
  std::vector<Bytes> limits = device_limits(name, r, shape, working, limit);

  // The candidates: four greedy passes of our own, the paper's heuristic with each of its eight
  // choices, then the same eight with the strict warm-up staircase where that differs (one stage
  // per device only), for zbv-auto the authors' ZB-V heuristic with each of
  // its four, and every handcrafted schedule of this placement, made and scored on every core;
  // the search takes them as if one by one, in this fixed order.
  const std::vector<GreedyChoices> passes = {{false, false}, {false, true}, {true, false}, {true, true}};
  std::vector<PaperGreedyChoices> paper_passes;
  for (WarmUpStaircase rule : {WarmUpStaircase::Reference, WarmUpStaircase::Strict}) {
    for (int bits = 0; bits < 8; ++bits) {
      paper_passes.push_back({(bits & 4) != 0, (bits & 2) != 0, (bits & 1) != 0, rule});
    }
  }
  std::vector<ZbvPaperChoices> vee_passes;
  if (vee_paper) vee_passes = {{true, true}, {true, false}, {false, true}, {false, false}};
  GenerateRequest plain = r;
  plain.costs = nullptr;
  const long long budget = r.search_budget > 0 ? r.search_budget : ScheduleSearch::kDefaultBudget;
  const std::vector<std::vector<Bytes>> planning = planning_limits(shape, working, limits, budget);
  std::vector<GreedyProblem> problems;
  for (const std::vector<Bytes>& l : planning) problems.push_back({shape, working, l});
  // The steady state of a few iterations ranks schedules as that of many does (the fill is paid
  // once, then each step repeats), so the search scores at most kSearchIterations of them.
  const SearchObjective objective{r.objective, std::min(r.iterations, kSearchIterations)};
  ScheduleSearch search(working, limits, budget, objective);
  const std::size_t per_limit = passes.size() + paper_passes.size() + vee_passes.size();
  const std::size_t greedy_count = per_limit * problems.size();
  search.offer_all(greedy_count + others.size(), [&](std::size_t i) -> ScheduleSearch::Candidate {
    if (i < greedy_count) {
      const GreedyProblem& problem = problems[i / per_limit];
      const std::size_t k = i % per_limit;
      const std::size_t vee_from = passes.size() + paper_passes.size();
      std::optional<GreedySchedule> pass = k < passes.size() ? greedy_zero_bubble(problem, passes[k])
                                           : k < vee_from
                                               ? paper_greedy_zero_bubble(problem, paper_passes[k - passes.size()])
                                               : zbv_paper_greedy(problem, vee_passes[k - vee_from]);
      if (!pass) return {};
      std::optional<ScheduleSearch::Score> known;
      if (pass->as_early_as_possible) known = search.score_of(pass->makespan, pass->longest_span);
      return {std::move(pass->schedule), known};
    }
    try {
      return {others[i - greedy_count](plain), std::nullopt};
    } catch (const Error&) {
      return {};  // this handcrafted schedule does not apply to this P and M
    }
  });
  std::optional<Schedule> best = search.improve();
  if (!best) {
    throw Error(std::string(name) + ": no schedule found within the memory limit; raise the limit");
  }
  best->name = std::string(name);
  return std::move(*best);
}

// One chunk per device, or several on the looped placement (automatic interleaved zero bubble).
Schedule looped_auto_schedule(std::string_view name, const GenerateRequest& r, Limit limit) {
  check_request(name, r);
  return auto_schedule(name, r, loop_placement(r.devices, r.chunks), limit,
                       handcrafted_candidates(r.chunks == 1 ? CandidateOf::SingleChunk : CandidateOf::Looped));
}

}  // namespace

Schedule generate_zb(const GenerateRequest& r) {
  return looped_auto_schedule("zb", r, Limit::Explicit);
}

Schedule generate_zb_1p(const GenerateRequest& r) {
  return looped_auto_schedule("zb-1p", r, Limit::OneP);
}

Schedule generate_zb_2p(const GenerateRequest& r) {
  return looped_auto_schedule("zb-2p", r, Limit::TwoP);
}

Schedule generate_zbv_auto(const GenerateRequest& r) {
  check_request("zbv-auto", r);
  return auto_schedule("zbv-auto", r, vee_placement(r.devices), Limit::ExplicitOrOneP,
                       handcrafted_candidates(CandidateOf::Vee), true);
}

}  // namespace pipeplan
