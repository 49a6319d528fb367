#pragma once
// The linear layers' matrix products of a transformer layer and of the head, with their shapes
// on one tensor-parallel rank, for each of F, B and W (docs/costs.md, "GEMM shapes"). Their FLOPs
// are the linear part of piece_work's counts; the attention core, a fused kernel or batched
// per-head products, is priced from piece_work's totals as a large product.
#include <cstddef>
#include <vector>

#include "estimate/gemm_efficiency.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// For a linear layer Y = X W^T over T tokens, X of T x in and W of out x in: F is T x out x in,
/// B (the input gradient dX = dY W) T x in x out, W (the weight gradient dW = dY^T X)
/// out x in x T, accumulated into the fp32 gradient.
/// One linear layer's tensors on one rank as the rank holds them (the sequence split t ways
/// before a column-parallel layer's gather and after a row-parallel layer's scatter): what an FP8
/// recipe quantises and keeps (fp8_recipe.hpp). Each is the whole layer's count over t.
struct LinearTensors {
  double input = 0;     ///< elements of X, T x in / t
  double gradient = 0;  ///< elements of dY, T x out / t
  double weight = 0;    ///< elements of W, in x out / t
  /// X stays in 16 bits anyway for another kernel's backward (the attention output that the
  /// output projection reads is kept for flash attention's): an FP8 copy of it adds to the
  /// activations instead of replacing it.
  bool input_kept = false;
};

/// Products of one phase that run beside one of tensor parallelism's collectives when
/// Transformer Engine overlaps them (`--tp-comm-overlap`): `count` entries of the phase's list
/// from `first` (tp_overlap.hpp).
struct OverlapSpan {
  std::size_t first = 0, count = 0;
  /// Transformer Engine's ring exchange: the products cut into t chunks of rows, one computed
  /// per hop (every forward collective, and B's gathers of the output gradient). Else a bulk
  /// overlap: the collective beside the whole products (B's scatter of the input gradient).
  bool chunked = true;
  /// The collective beside them is a reduce-scatter (after F's row-parallel products, after B's
  /// column-parallel input gradients); else an all-gather.
  bool scatter = false;
};

struct PhaseGemms {
  std::vector<GemmShape> f, b, w;
  std::vector<LinearTensors> linears;  ///< the layers behind the products (empty: none given)
  /// One span a collective of F and of B that a TE linear's GEMMs can hide: the gather before
  /// a column-parallel group (attention's QKV, the MLP's first matrices) and the scatter after a
  /// row-parallel one, with their B counterparts at the same products' input gradients, and
  /// under full recompute F's again in B. A mixture of experts' MLP has none: its gather and
  /// scatter are the token dispatcher's, not a TE linear's.
  std::vector<OverlapSpan> f_overlap, b_overlap;
};

/// The attention's linears (attention_shape.hpp), the MLP's first matrices (SwiGLU's gate and up
/// as one product) and its last, as Megatron-LM runs them under tensor and sequence
/// parallelism: the sequence gathered whole, the columns or rows split by t. A layer with
/// experts lists its shared expert's MLP and its routed experts' grouped products (E/ep of them,
/// each over its balanced share of the rows). Under full recompute B also holds F's and W's
/// products (W runs inside B, docs/costs.md). Tensor parallelism must divide what it splits
/// (layer_work checks it). `linears` names the layers' tensors (what an FP8 recipe casts).
/// `f_overlap` and `b_overlap` pair the layer's collectives with the products they can hide under.
[[nodiscard]] PhaseGemms layer_linear_gemms(const ModelConfig& model, const TrainingSettings& training,
                                            const LayerKind& kind);

/// The model's first layer's (every layer's, for a model whose layers are all alike).
[[nodiscard]] PhaseGemms layer_linear_gemms(const ModelConfig& model, const TrainingSettings& training);

/// The head's logits, their input gradient and the head's weight gradient (vocabulary split by t).
[[nodiscard]] PhaseGemms head_linear_gemms(const ModelConfig& model, const TrainingSettings& training);

}  // namespace pipeplan
