#pragma once
// What the planner is asked and what it answers (docs/costs.md, "The planner").
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "estimate/analytic_profile.hpp"
#include "lower/lowering.hpp"
#include "model/units.hpp"
#include "plan/step_breakdown.hpp"
#include "sim/comm_mode.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// Memory a training process holds beside its tensors, which the planner keeps free: the CUDA
/// context alone takes about 0.78 GB (PyTorch issue #34323: nvidia-smi shows 781 MB before any
/// tensor), and NCCL allocates its communication buffers (NCCL_BUFFSIZE, 4 MiB per channel and
/// peer) outside PyTorch's allocator (PyTorch's "Understanding CUDA Memory Usage"), one set per
/// communicator: tensor, data and pipeline groups each. 1 GiB is their sum, rounded down.
inline constexpr Bytes kRuntimeMemoryReserve = Bytes{1} << 30;

/// Which settings the planner searches; the others stay at the request's TrainingSettings.
struct SearchedSettings {
  bool tp =
      true;  ///< every t dividing the GPUs, the heads, the key-value heads and the FFN, up to min(NVLink domain, 8)
  bool micro_batch = true;  ///< 1, 2, 4, ... up to max_micro_batch, dividing the global batch
  bool recompute = true;    ///< none, full (and selective without flash attention, where it differs from none)
  bool sharding = true;     ///< the distributed optimizer, and the gradients sharded when memory is short
  bool ep = true;  ///< a mixture of experts: every ep dividing the experts with etp·ep dividing tp·cp·dp (folding)
  bool cp = true;  ///< context parallelism: powers of two dividing the GPUs over tp, 2·cp dividing the sequence
};

struct PlanRequest {
  ModelConfig model;
  TrainingSettings training;  ///< global_batch must be set; tp, micro_batch, recompute, sharding when fixed
  SearchedSettings search;
  const GpuSpec* gpu = nullptr;
  Efficiency efficiency;
  int gpus = 1;           ///< every GPU of the job: tensor x context x pipeline x data parallelism
  int gpus_per_node = 0;  ///< GPUs of one NVLink domain; 0: the GPU table's placement_domain()
  /// The GPUs consecutive ranks fill on one domain: --gpus-per-node, or the card's block.
  [[nodiscard]] int node_gpus() const { return gpus_per_node > 0 ? gpus_per_node : gpu->placement_domain(); }
  /// How ranks are numbered onto nodes (rank_placement.hpp); nullopt: both orders are tried for
  /// each configuration where they give different links, and the faster kept.
  std::optional<RankOrder> rank_order;
  Bytes memory_limit = 0;  ///< per GPU; 0: the card's memory
  /// What the runtime holds outside the model's tensors, taken off the limit: the CUDA context,
  /// NCCL's buffers and cuBLAS's workspaces. `pipeplan plan` gives kRuntimeMemoryReserve unless
  /// told otherwise; 0 here, so that a caller's limit is the model's.
  Bytes memory_reserve = 0;
  std::vector<std::string> schedules;  ///< generator names
  /// The precisions to try, each a row of its own (`--dtype bf16,fp8`); empty: the training's.
  std::vector<Precision> precisions;
  /// A layout string (pipeplan's or Megatron's notation): only configurations with its stage
  /// count; or "even" / "padded": Megatron's split for every stage count it divides.
  std::optional<std::string> layout;
  int pp = 0;               ///< only this pipeline degree; 0: every one dividing the ranks
  int chunks = 0;           ///< only this many chunks per device (generators that take it); 0: any
  int max_chunks = 4;       ///< the most chunks per device tried for the interleaved schedules
  int max_micro_batch = 8;  ///< the largest micro-batch size searched
  int microbatches = 0;     ///< only configurations with this many micro-batches; 0: any
  /// The rows the search must rank exactly: a configuration whose step cannot beat the top-th
  /// best found is not simulated. 0: simulate everything.
  std::size_t top = 0;
  int threads = 0;                         ///< 0: every core
  std::optional<MeasuredPieces> measured;  ///< piece times from pipeplan-gpu calibrate
  /// How each device steps its optimizer: the rows' step time is simulated under it, and the
  /// automatic schedules minimise that step. `iterations` back-to-back steps (1: one step, fill
  /// and drain included; 2 or more: the steady state).
  OptimizerMode optimizer_mode = OptimizerMode::Sync;
  int iterations = 1;
  /// How the runtime runs its sends and receives (docs/model.md, "Communication"): Overlap, the
  /// core's transfers beside compute; Blocking or Rendezvous, each row's schedule lowered with
  /// `policy` (nullopt: Timed) and simulated as `simulate --comm` does. A configuration whose
  /// lowering deadlocks is refused. `policy` must be empty under Overlap.
  CommMode comm = CommMode::Overlap;
  std::optional<LowerPolicy> policy;
  /// The automatic schedules' search budget while the planner ranks configurations (simulated
  /// ops; 0: their default, ScheduleSearch::kDefaultBudget). With a smaller one the planner then
  /// re-evaluates the first `top` rows with the default, so the rows it shows are what
  /// `pipeplan generate` and --emit-schedule build; `pipeplan plan` passes a quarter.
  long long search_budget = 0;
};

/// One configuration and what the simulation predicts for it.
struct PlanRow {
  int pp = 1, dp = 1, tp = 1, chunks = 1, microbatches = 1;
  int ep = 1;           ///< expert parallelism, folded over a stage's tp·cp·dp ranks (1 for a dense model)
  int cp = 1;           ///< context parallelism: each sequence over cp ranks
  int etp = 1;          ///< expert tensor parallelism (tp unless --etp says otherwise; a mixture of experts only)
  int micro_batch = 1;  ///< sequences per micro-batch
  Recompute recompute = Recompute::None;
  int recompute_layers = 0;  ///< full recompute's block: the first N layers of each stage; 0: all (training.hpp)
  RecomputeModules recompute_modules = kDefaultRecomputeModules;  ///< selective recompute's (training.hpp)
  Sharding sharding = Sharding::None;
  Precision precision;                       ///< the storage type and FP8 recipe the row trains with
  RankOrder rank_order = RankOrder::TpDpPp;  ///< how the ranks sit on nodes: the faster of those tried
  std::string schedule;
  std::string layout;
  std::string megatron_layout;     ///< the same, for Megatron-LM's --pipeline-model-parallel-layout
  double step_ms = 0;              ///< 0 when not simulated (see `estimated`)
  double bubble_rate = 0;          ///< the first iteration's idle share over devices x makespan
  std::vector<Bytes> peak_memory;  ///< per pipeline device, static memory included
  Bytes memory_limit = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;  ///< model FLOPs per second over the GPUs' dense peak
  /// Over memory before any simulation: peak_memory is the lower bound (static memory plus one
  /// micro-batch's activations on each of the device's stages).
  bool estimated = false;
  /// The automatic schedule's search ran with a smaller budget than its default
  /// (PlanRequest::search_budget): the planner builds the rows it shows again before showing them.
  bool partial_search = false;
  /// Where the step goes (step_breakdown.hpp); absent for a row estimated without simulation.
  std::optional<StepBreakdown> breakdown;
  [[nodiscard]] Bytes max_peak() const;
  /// Selective recompute of modules other than Megatron-Core's default, the attention core alone:
  /// what the JSON, the table's legend and Megatron's launch spell out.
  [[nodiscard]] bool names_recompute_modules() const {
    return recompute == Recompute::Selective && recompute_modules != kDefaultRecomputeModules;
  }
  /// The row's settings: the request's, with this row's tp, cp, ep, micro-batch, recompute and sharding.
  [[nodiscard]] TrainingSettings training(const TrainingSettings& base) const;
};

struct PlanOutcome {
  std::vector<PlanRow> rows;                           ///< within memory, best first, identical rows once
  std::vector<PlanRow> over_memory;                    ///< above the limit, least excess first
  std::map<std::string, int> refused;                  ///< configurations a generator refused, by reason
  std::map<std::string, std::string> refused_example;  ///< reason: the first configuration refused for it
  int considered = 0;                                  ///< every configuration tried
  int skipped = 0;  ///< not simulated: a lighter recompute or sharding fits, a block's full recompute does not, or its
                    ///< bound cannot reach the top
  int merged = 0;   ///< rows identical to a shown one (the same step and peak under another schedule)
  bool experts = false;     ///< the model is a mixture of experts: rows show their ep
  bool precisions = false;  ///< several precisions were tried: rows show theirs and etp
};

}  // namespace pipeplan
