#pragma once
// One planner job: its recompute and sharding variants, each on its candidate layouts, skipped
// when a bound says it cannot fit or cannot reach the top rows (docs/costs.md, "The planner").
#include <string>
#include <utility>
#include <vector>

#include "model/schedule.hpp"
#include "plan/plan_bounds.hpp"
#include "plan/search_space.hpp"

namespace pipeplan {

struct JobOutcome {
  std::vector<PlanRow> rows;                                  ///< within memory: one per variant, its best layout
  std::vector<PlanRow> over_memory;                           ///< per variant none of whose layouts fits: the closest
  std::vector<std::pair<std::string, std::string>> refusals;  ///< configuration, reason
  int skipped = 0;
};

/// Evaluates every variant of `job`. A variant is skipped when a lighter one already fits and
/// the schedule's order does not depend on the memory limit (more recompute or sharding only
/// adds work to the same order), or when every layout's step bound exceeds top.bar().
[[nodiscard]] JobOutcome evaluate_job(const PlanRequest& request, const PlanJob& job, TopSteps& top);

/// A configuration's schedule and profile, and the row its simulation gives.
struct EvaluatedLayout {
  Schedule schedule;
  AnalyticProfile profile;
  PlanRow row;
  SimTime step = 0;
};
/// `search_budget` is the automatic schedules' (GenerateRequest::search_budget; 0: their default).
[[nodiscard]] EvaluatedLayout evaluate_layout(const PlanRequest& request, const PlanJob& job,
                                              const TrainingSettings& training, const Layout& layout, RankOrder order,
                                              long long search_budget = 0);

/// The rank orders to try for a job: the request's; with expert or context parallelism (which
/// Megatron's --use-tp-pp-dp-mapping refuses) Megatron's default; otherwise whichever of the two has every
/// link as fast as the other's (rank_placement's links_as_fast; the default when they are the
/// same), or both when each is faster somewhere.
[[nodiscard]] std::vector<RankOrder> rank_orders(const PlanRequest& request, const PlanJob& job,
                                                 const TrainingSettings& training);

}  // namespace pipeplan
