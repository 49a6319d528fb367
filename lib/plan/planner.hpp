#pragma once
// The planner (docs/costs.md, "The planner"): for a model on a number of GPUs, every pipeline
// degree (data parallelism filling the rest), chunk count, micro-batch count the global batch
// allows and schedule, each with a cost-balanced layout (or the one given), simulated with the
// analytic costs and ranked by tokens per second per GPU.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/schedule.hpp"
#include "plan/analytic_profile.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct PlanRequest {
  ModelConfig model;
  TrainingSettings training;          ///< global_batch must be set
  const GpuSpec* gpu = nullptr;
  Efficiency efficiency;
  int gpus = 1;                       ///< every GPU of the job: pipeline x data x tensor parallelism
  int gpus_per_node = 0;              ///< 0: the GPU table's
  Bytes memory_limit = 0;             ///< per GPU; 0: the card's memory
  std::vector<std::string> schedules; ///< generator names
  std::optional<std::string> layout;  ///< a layout string; only configurations with its stage count
  int max_chunks = 4;                 ///< the most chunks per device tried for the interleaved schedules
  int threads = 0;                    ///< 0: every core
  std::optional<MeasuredPieces> measured;  ///< piece times from pipeplan-gpu calibrate
  /// How each device steps its optimizer: the rows' step time is simulated under it, and the
  /// automatic schedules minimise that step. `iterations` back-to-back steps (1: one step, fill
  /// and drain included; 2 or more: the steady state).
  OptimizerMode optimizer_mode = OptimizerMode::Sync;
  int iterations = 1;
};

/// One configuration and what the simulation predicts for it.
struct PlanRow {
  int pp = 1, dp = 1, tp = 1, chunks = 1, microbatches = 1;
  std::string schedule;
  std::string layout;
  double step_ms = 0;
  double bubble_rate = 0;             ///< the first iteration's idle share over devices x makespan
  std::vector<Bytes> peak_memory;     ///< per pipeline device, static memory included
  Bytes memory_limit = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;                     ///< model FLOPs per second over the GPUs' dense peak
  [[nodiscard]] Bytes max_peak() const;
};

struct PlanOutcome {
  std::vector<PlanRow> rows;          ///< within memory, best first
  std::vector<PlanRow> over_memory;   ///< simulated but above the limit, least excess first
  std::map<std::string, int> refused; ///< configurations a generator refused, by reason
  int considered = 0;                 ///< every configuration tried
};

/// The schedules the planner tries when none are named.
[[nodiscard]] std::vector<std::string> default_plan_schedules();

/// Runs the search on request.threads threads. `progress(done, total)` is called on the calling
/// thread, about ten times a second while it runs and once at the end. Throws Error for a
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
