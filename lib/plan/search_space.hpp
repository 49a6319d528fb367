#pragma once
// The configurations the planner tries (docs/costs.md, "The planner"): tensor, pipeline and data
// parallelism, micro-batch size and count, chunks and schedule, each with the recompute and
// sharding variants it tries in turn.
#include <utility>
#include <vector>

#include "plan/plan_request.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

/// The most micro-batches per step the planner searches when --microbatches does not fix the
/// count (issue 31, item 9): a job's time grows with its ops, P x V x M, and a global batch of
/// 16 Mi sequences on 8 GPUs asked for 2^18 to 2^21 micro-batches in every configuration and ran
/// past 400 s. Past a few thousand the step grows by M's share alone (the bubble, (P - 1) / M of
/// the fill, is gone), so nothing is lost to a search; the published runs use at most 512.
inline constexpr int kMaxSearchedMicrobatches = 4096;

/// The context-parallel degrees worth trying at tensor parallelism `tp`: the fixed one, or every
/// power of two dividing the GPUs over tp with 2·cp dividing the sequence (1 alone without flash
/// attention, which Megatron's ring needs).
[[nodiscard]] std::vector<int> cp_choices(const PlanRequest& request, int tp);

/// Recompute and sharding: what trades time for memory within one configuration.
struct MemoryVariant {
  Recompute recompute = Recompute::None;
  Sharding sharding = Sharding::None;
  RecomputeModules modules = kDefaultRecomputeModules;  ///< selective recompute's
  /// Full recompute's block, Megatron-LM's --recompute-method block --recompute-num-layers N:
  /// the first N layers of each stage (each chunk) recompute, the rest keep their activations;
  /// 0: every layer, or the request's --recompute-layers when it gives one.
  int recompute_layers = 0;
  /// How much the variant recomputes, in the order its memory falls and its time grows: none,
  /// selective, full recompute's blocks from the smallest, full on every layer.
  [[nodiscard]] long recompute_depth() const {
    if (recompute != Recompute::Full) return recompute == Recompute::Ops ? kEveryLayer + 1 : long(recompute);
    return recompute_layers > 0 ? long(Recompute::Full) + recompute_layers : kEveryLayer;
  }
  /// No slower than `other` and no lighter on memory: each setting at or below other's.
  [[nodiscard]] bool at_most(const MemoryVariant& other) const {
    return recompute_depth() <= other.recompute_depth() && sharding <= other.sharding;
  }

 private:
  static constexpr long kEveryLayer = 1L << 20;  // past any block: layers are counted in int
};

struct PlanJob {
  int tp = 1, pp = 1, dp = 1, chunks = 1, microbatches = 1, micro_batch = 1;
  const Generator* generator = nullptr;
  std::vector<MemoryVariant> variants;  ///< lightest first; see the planner for which it skips
  double estimate_ms = 0;               ///< a rough step, to try the promising jobs first
  int ep = 1;                           ///< expert parallelism, dividing the experts, etp·ep dividing tp·cp·dp
  int cp = 1;                           ///< context parallelism; GPUs = tp·cp·pp·dp
  Precision precision;                  ///< the storage type and FP8 recipe
};

/// The tensor-parallel degrees worth trying: the fixed one, or every t dividing the GPUs, the
/// heads, the key-value heads and the FFN widths (the experts' too), up to a node's GPUs.
[[nodiscard]] std::vector<int> tp_choices(const PlanRequest& request);

/// Every job, sorted by estimate; configurations that cannot be built (a global batch that does
/// not split, too many micro-batches) are counted in `refused`. Throws Error for a request no
/// configuration can meet, naming the flag.
[[nodiscard]] std::vector<PlanJob> plan_jobs(const PlanRequest& request, std::map<std::string, int>& refused);

/// The precisions to try: the request's list, or its training's one.
[[nodiscard]] std::vector<Precision> precisions_of(const PlanRequest& request);

/// The settings of one job and variant: the request's, with the job's tp, cp, ep and micro-batch.
[[nodiscard]] TrainingSettings job_training(const PlanRequest& request, const PlanJob& job, const MemoryVariant& v);

/// "zb, pp 8 x 1 chunks, dp 1, tp 2, micro-batch 1, recompute none, sharding none, 64 micro-batches"
/// (", cp C" after tp when C > 1, ", ep E" when E > 1).
[[nodiscard]] std::string job_title(const PlanJob& job, const MemoryVariant& v);

}  // namespace pipeplan
