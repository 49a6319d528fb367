#pragma once
// A profile the simulator reads, estimated from a model, its training settings, a GPU and a
// layout (docs/costs.md). What `pipeplan profile` writes and what the planner simulates with.
#include <span>
#include <string>

#include "costs/cost_model.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/layout.hpp"
#include "estimate/model_config.hpp"
#include "estimate/piece_cost.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/rank_placement.hpp"
#include "estimate/time_parts.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// Where the pipeline runs: its stages' devices, the data parallelism beside it, and how the
/// ranks are numbered onto nodes (rank_placement.hpp), which decides each group's link.
struct Deployment {
  std::span<const int> placement;  ///< device of each stage of the layout
  int devices = 1;                 ///< pipeline degree P
  int data_parallel = 1;  ///< replicas of the pipeline (each of tp·cp ranks a stage), whose gradients are reduced
  int gpus_per_node = 8;  ///< GPUs of one NVLink domain (GpuSpec::nvlink_domain unless overridden)
  RankOrder order = RankOrder::TpDpPp;  ///< Megatron-LM's default unless told otherwise
};

/// Measured F, B and W of each piece (pipeplan-gpu calibrate), which replace the analytic
/// times when given; memory stays analytic.
struct MeasuredPieces {
  StageCost layer, head, embedding;  ///< f_ms, b_ms, w_ms only
};

/// Where each stage's and device's time goes (docs/costs.md, "Where the step goes"): what
/// `plan --breakdown` adds up over a device's ops.
struct ProfileBreakdown {
  std::vector<TimeParts> stages;         ///< per stage: one micro-batch's F + B + W of its layers, line by line
  std::vector<double> edge_ms;           ///< per stage: one micro-batch's embedding, head and loss
  std::vector<double> optimizer_ms;      ///< per device: Adam's step and FP8's weight casts
  std::vector<double> data_parallel_ms;  ///< per device: the gradient reduction and weight gather left exposed
  bool measured = false;                 ///< the piece times were measured: the layers' lines are not split
};

struct AnalyticProfile {
  CostModel costs;
  double model_flops_per_microbatch = 0;  ///< F, B and W of the whole model, every TP rank together
  ProfileBreakdown breakdown;
};

/// The work of each stage of `layout`.
[[nodiscard]] std::vector<PieceWork> stage_work(const ModelConfig& model, const TrainingSettings& training,
                                                const Layout& layout);

/// The profile of `layout` deployed as `deployment` says: per stage F, B, W and activations;
/// per device static memory and optimizer time (Adam's memory traffic on its shard, plus the
/// data-parallel all-reduce of fp32 gradients, or with sharding the reduce-scatter and the
/// all-gather of the weights; under Sharding::Gradients each W's time includes reduce-scattering
/// its gradients); the transfer of a micro-batch's activation between stages, over the link the
/// rank order puts each stage boundary on: `transfer` when every boundary takes the same link,
/// otherwise `boundaries`, one per boundary, with `transfer` the slowest of them. Every group's
/// link (tensor, data, expert parallelism) is its nodes' or the network's as the Deployment's
/// rank order places it (docs/costs.md, "Placing ranks on nodes"). A mixture of
/// experts' expert weights are replicated over the edp = tp·cp·dp / (etp·ep) ranks holding the
/// same experts only (Megatron's folding), the other weights over dp·cp, and when every device
/// holds two stages each stage's FB op overlaps the all-to-alls (DualPipe). Under
/// Sharding::Params, FSDP's gathers and reduce-scatters (fsdp.hpp). With `measured`, each stage's
/// times are the sums of its pieces' measured times. Under FP8 training (training.fp8) the layers'
/// linear products run in FP8 with the recipe's casts, and each device keeps the FP8 weight copies
/// and makes them once a step (fp8_recipe.hpp). Throws Error when the placement does not match the
/// layout, the grid cannot be laid out (check_expert_folding, check_rank_grid), or the recipe
/// cannot run on `gpu`.
[[nodiscard]] AnalyticProfile analytic_profile(const ModelConfig& model, const TrainingSettings& training,
                                               const GpuSpec& gpu, const Efficiency& efficiency, const Layout& layout,
                                               const Deployment& deployment, const MeasuredPieces* measured = nullptr);

/// The sum of F + B + W of each piece, measured when given, analytic otherwise: what layouts
/// balance. Throws Error for measured pieces of a model whose layers differ.
struct PieceTotals {
  double embedding = 0, head = 0;
  std::vector<double> layers;  ///< one a layer, in order (layers differ by kind: layer_kinds.hpp)
  [[nodiscard]] double all() const;
};
[[nodiscard]] PieceTotals piece_totals(const ModelConfig& model, const TrainingSettings& training, const GpuSpec& gpu,
                                       const Efficiency& efficiency, const MeasuredPieces* measured = nullptr,
                                       const GroupLinks* links = nullptr);

}  // namespace pipeplan
