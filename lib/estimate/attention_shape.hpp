#pragma once
// The linear layers of a transformer block and the widths its attention works on, per token
// (docs/costs.md, "Work per piece" and "Latent attention"): the one description that the FLOP,
// parameter and activation counts (piece_work) and the GEMM shapes (piece_gemms) both read.
#include <cstdint>
#include <vector>

#include "estimate/model_config.hpp"

namespace pipeplan {

/// One linear layer Y = X W^T over every token of a micro-batch: X has `in` features, Y `out`.
/// Megatron-LM splits its weight over the tensor-parallel ranks by columns (out) or rows (in), or
/// keeps it whole on every rank (MLA's down projections), each rank then taking its tokens' share.
struct Linear {
  enum class Split : unsigned char { Columns, Rows, None };
  std::int64_t in = 0, out = 0;
  Split split = Split::Columns;
};

struct AttentionShape {
  std::vector<Linear> linears;   ///< in the order they run: QKV and the output projection, or MLA's five
  double kept_width = 0;         ///< elements a token keeps for the backward: the linears' inputs, Q, K and V
  double rope_width = 0;         ///< elements a token's rotary embedding turns (queries and keys)
  double latent_norm_width = 0;  ///< the inputs of MLA's latent norms, a token's
  double score_width = 0;        ///< a query token's multiply-adds per key in Q K^T: heads x query-key head width
  double value_width = 0;        ///< the same for the product with V: heads x value head width
  double kv_width = 0;           ///< K and V together, a token's, as the attention core reads them
  double split_biases = 0;       ///< biases split with their columns (Qwen2's and GPT-OSS's Q, K and V)
};

/// The attention of `model`'s layers: grouped-query (Llama, Qwen, GPT-OSS) or latent (DeepSeek-V3).
[[nodiscard]] AttentionShape attention_shape(const ModelConfig& model);

/// A dense MLP of `width`: gate and up as one product and down (SwiGLU), or two matrices.
[[nodiscard]] std::vector<Linear> mlp_linears(const ModelConfig& model, std::int64_t width);

/// Per token: the multiply-adds of `linears` (their weights' elements) and the elements of
/// their inputs and outputs together (what the weight gradients read).
[[nodiscard]] double weight_elements(const std::vector<Linear>& linears);
[[nodiscard]] double input_and_output_elements(const std::vector<Linear>& linears);

}  // namespace pipeplan
