#pragma once
// The work of each piece of a transformer for one micro-batch on one tensor-parallel rank: the
// FLOPs of its matrix products, the bytes its element-wise kernels move, the collectives tensor
// parallelism adds, its parameters and the activations it keeps (docs/costs.md, "Work per piece").
#include <cstdint>

#include "estimate/attention_kernel.hpp"
#include "estimate/context_parallel.hpp"
#include "estimate/host_launch.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"
#include "model/units.hpp"

namespace pipeplan {

/// F, B and W of one piece. B holds the input gradients and, under recompute, the recomputed
/// forward; W the weight-gradient products alone (full recompute folds W into B, see
/// docs/costs.md).
struct PieceWork {
  double f_flops = 0, b_flops = 0, w_flops = 0;  ///< matrix products (GEMMs, attention core)
  double f_bytes = 0, b_bytes = 0, w_bytes = 0;  ///< memory traffic of element-wise kernels
  double recompute_flops = 0;                    ///< the part of b_flops that repeats the forward (not model FLOPs)
  double f_core_flops = 0, b_core_flops = 0;     ///< the part of f_flops and b_flops in the attention core
  double b_core_forward_flops = 0;               ///< the part of b_core_flops that runs the core's forward again
  double tp_bytes = 0;                           ///< bytes one collective of tensor parallelism moves per rank
  int f_collectives = 0, b_collectives = 0;
  std::int64_t params = 0;         ///< parameters this rank holds
  std::int64_t expert_params = 0;  ///< the part of params in routed experts (moe_work.hpp)
  double all_to_all_bytes = 0;     ///< bytes one all-to-all of expert parallelism sends from each rank
  double all_to_all_token_bytes =
      0;                          ///< one copy of each of the rank's tokens (what node-limited routing sends a node)
  int all_to_all_node_limit = 0;  ///< DeepSeek's node-limited routing: the most groups a token reaches (0: none)
  /// The flex dispatcher's deduplication (moe_work.hpp): the experts, how many a token takes and
  /// the expert-parallel ranks; all 0 under the all-to-all dispatcher.
  int dedup_experts = 0, dedup_per_token = 0, dedup_ranks = 0;
  double expert_gather_bytes = 0;            ///< bytes the etp gather beside each all-to-all moves per rank
  int f_all_to_alls = 0, b_all_to_alls = 0;  ///< expert dispatch and combine in F, and in B
  Bytes activation_bytes = 0;                ///< a_F: what F keeps for the backward
  Bytes w_activation_bytes = 0;              ///< a_W: what W still needs after B (may exceed a_F; see stage_costs)
  /// Held only while F, and B, run (StageCost's): one piece's at a time, so a stage's is its
  /// pieces' largest, not their sum.
  Bytes f_workspace_bytes = 0, b_workspace_bytes = 0;
  AttentionCall core_call;  ///< what the attention core's kernel works on (attention_kernel.hpp)
  ContextRing ring;         ///< context parallelism's K and V exchange (one layer's; context_parallel.hpp)
  HostCalls host;           ///< what its forward asks of the host (host_launch.hpp)

  PieceWork& operator+=(const PieceWork& other);
  /// The model FLOPs of F, B and W together: the work without recompute.
  [[nodiscard]] double model_flops() const { return f_flops + b_flops + w_flops - recompute_flops; }
};

/// A transformer block with a dense MLP of `mlp_width` (0: none, as in a mixture of experts'
/// layer, whose experts moe_work adds): the attention, both norms and residual adds. Throws Error
/// when the tensor parallelism does not divide the heads, the key-value heads or the MLP width.
[[nodiscard]] PieceWork block_work(const ModelConfig& model, const TrainingSettings& training, const LayerKind& kind,
                                   std::int64_t mlp_width);

/// One transformer layer of `kind`: dense with the model's `ffn`, or with its experts.
[[nodiscard]] PieceWork layer_work(const ModelConfig& model, const TrainingSettings& training, const LayerKind& kind);

/// The model's first layer (every layer, for a model whose layers are all alike).
[[nodiscard]] PieceWork layer_work(const ModelConfig& model, const TrainingSettings& training);

/// The embedding (and GPT-2's position embedding) on the first stage.
[[nodiscard]] PieceWork embedding_work(const ModelConfig& model, const TrainingSettings& training);

/// The final norm, the output head and the cross-entropy loss on the last stage, and DeepSeek's
/// multi-token prediction modules when the model has them (with the embedding's weights they share).
[[nodiscard]] PieceWork head_work(const ModelConfig& model, const TrainingSettings& training);

/// The parameters of every layer on one rank of `training`'s tensor parallelism.
[[nodiscard]] std::int64_t layers_parameters(const ModelConfig& model, const TrainingSettings& training);

/// The model's parameters, counting tied embeddings once and no multi-token prediction module
/// (what model cards publish: DeepSeek-V3's 671B).
[[nodiscard]] std::int64_t model_parameters(const ModelConfig& model);

}  // namespace pipeplan
