#pragma once
// The experts of a mixture of experts, read from a Hugging Face config.json (docs/costs.md,
// "Mixture of experts"): Mixtral's keys and Qwen-MoE's. Which configs may have experts at all is
// model_family's decision; this file only reads and writes them.
#include <string_view>

#include "estimate/model_config.hpp"
#include "io/json_fields.hpp"

namespace pipeplan {

/// The experts of a config whose model_type is `model_type`: Mixtral's num_local_experts (each
/// intermediate_size wide, `dense_ffn`), Qwen-MoE's num_experts (moe_intermediate_size wide, with
/// a shared expert shared_expert_intermediate_size wide and its gate). None for other types, or
/// for one expert or none. Throws Error naming the key when a size is missing or out of range,
/// when more experts are picked per token than there are, or when Qwen-MoE's layers are not all
/// sparse (decoder_sparse_step above 1, mlp_only_layers not empty): pipeplan's layers are alike.
[[nodiscard]] ExpertShape read_expert_shape(const Json& document, const JsonPath& root, std::string_view model_type,
                                            int dense_ffn);

/// Writes `model`'s experts as the keys read_expert_shape reads back; nothing for a dense model.
void write_expert_shape(const ModelConfig& model, Json& document);

}  // namespace pipeplan
