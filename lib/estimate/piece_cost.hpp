#pragma once
// One piece's (a layer's, the embedding's, the head's) F, B and W times on a GPU, line by line
// (docs/costs.md, "Where the step goes"), and the links its collectives take: what a stage
// profile (analytic_profile.hpp) sums over its pieces.
#include "costs/cost_model.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_gemms.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/rank_placement.hpp"
#include "estimate/time_parts.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// The links a rank's collectives take inside a layer: tensor parallelism's all-gathers and
/// reduce-scatters, a mixture of experts' all-to-alls, context parallelism's ring and the expert
/// tensor-parallel gathers. Each group's node's link when all its groups lie within a node, the
/// network otherwise; the collectives' groups (tensor, expert-tensor) as collective_link.hpp
/// says, on as many network cards as a node holds members.
struct GroupLinks {
  LinkSpec tensor;
  LinkSpec experts;
  LinkSpec context;
  LinkSpec expert_tensor;
  int expert_domains = 1;  ///< the NVLink domains an expert-parallel group spans (node-limited routing's nodes)
};

/// The links of `grid`'s tensor-, expert-, context- and expert-tensor-parallel groups on `gpu`.
[[nodiscard]] GroupLinks group_links(const GpuSpec& gpu, const RankGrid& grid);

/// `gpu`'s node link for both: what piece_cost assumes when given no links.
[[nodiscard]] GroupLinks node_links(const GpuSpec& gpu);

/// A group's link: `gpu`'s node link when every group of its kind lies within a node, the
/// network's otherwise (rank_placement.hpp).
[[nodiscard]] const LinkSpec& node_or_network_link(bool within_node, const GpuSpec& gpu);

/// Milliseconds to move `bytes` at `efficiency` of `gb_per_s`: element-wise kernels and the
/// optimizer's step, memory-bound.
[[nodiscard]] double ms_for_bytes(double bytes, double gb_per_s, double efficiency);

/// A piece's F, B and W times split into the lines of the step's error budget (time_parts.hpp).
struct PieceParts {
  TimeParts f, b, w;
  [[nodiscard]] TimeParts all() const {
    TimeParts t = f;
    t += b;
    t += w;
    return t;
  }
};

/// piece_cost's times, line by line: their totals are piece_cost's F, B and W.
[[nodiscard]] PieceParts piece_parts(const PieceWork& work, const PhaseGemms& gemms, const GpuSpec& gpu,
                                     const Efficiency& efficiency, const TrainingSettings& training,
                                     const GroupLinks* links = nullptr);

/// The time of a piece's F, B and W on `gpu`, in milliseconds: FLOPs at the GEMM efficiency of
/// the peak, element-wise bytes at the memory efficiency of the bandwidth, tensor-parallel
/// collectives and a mixture of experts' all-to-alls over `links` (nullptr: node_links, both
/// inside a node). Activation bytes are copied; a_W is capped at a_F.
[[nodiscard]] StageCost piece_cost(const PieceWork& work, const GpuSpec& gpu, const Efficiency& efficiency,
                                   const TrainingSettings& training, const GroupLinks* links = nullptr);

/// The same with the piece's linear products priced by their shapes (gemm_ms: tile and wave
/// quantisation, the roofline), the attention core at its kernel's measured rate
/// (attention_kernel.hpp; unfused, unfused_attention.hpp) and the rest of each phase's FLOPs at
/// the GEMM efficiency of the peak. What profiles and layouts use.
[[nodiscard]] StageCost piece_cost(const PieceWork& work, const PhaseGemms& gemms, const GpuSpec& gpu,
                                   const Efficiency& efficiency, const TrainingSettings& training,
                                   const GroupLinks* links = nullptr);

}  // namespace pipeplan
