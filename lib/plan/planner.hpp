#pragma once
// The planner (docs/costs.md, "The planner"): for a model on a number of GPUs, every tensor and
// pipeline degree (data parallelism filling the rest), micro-batch size and count, chunk count,
// schedule, recompute and optimizer sharding, each with the best of its cost-balanced and tilted
// layouts (or the one given), simulated with the analytic costs and ranked by tokens per second
// per GPU.
#include <functional>
#include <string>
#include <vector>

#include "model/schedule.hpp"
#include "plan/plan_request.hpp"

namespace pipeplan {

/// The schedules the planner tries when none are named.
[[nodiscard]] std::vector<std::string> default_plan_schedules();
/// The same for `model`, with dualpipev for a mixture of experts (its all-to-alls to overlap).
[[nodiscard]] std::vector<std::string> default_plan_schedules(const ModelConfig& model);

/// Runs the search on request.threads threads. `progress(done, total)` is called on the calling
/// thread, about ten times a second while it runs and once at the end, in configurations: its
/// total is PlanOutcome::considered. Throws Error for a
/// request no configuration can meet (GPUs not a multiple of --tp, a global batch no
/// data-parallel degree divides, an unknown schedule, a layout string that does not parse).
[[nodiscard]] PlanOutcome plan(const PlanRequest& request,
                               const std::function<void(std::size_t, std::size_t)>& progress = {});

/// The winner's (or any row's) schedule and the profile it was simulated with, rebuilt.
struct PlannedRun {
  Schedule schedule;
  AnalyticProfile profile;
};
[[nodiscard]] PlannedRun rebuild_row(const PlanRequest& request, const PlanRow& row);

}  // namespace pipeplan
