#pragma once
// Which models pipeplan's analytic costs describe (docs/costs.md, "Model input"): decoder-only
// transformers of the Llama family and GPT-2, and the mixtures of experts Mixtral and Qwen-MoE.
// Anything else is refused by name rather than planned as something it is not.
#include <string_view>

#include "io/json_fields.hpp"

namespace pipeplan {

/// True for the model_type values pipeplan models: llama, mistral, qwen2, gpt2, mixtral, qwen2_moe.
[[nodiscard]] bool modelled_model_type(std::string_view model_type);

/// Throws Error naming the key and the value when the config's model_type or one of its
/// architectures is not modelled, when it has experts under a key its model_type does not name
/// them by (Mixtral's num_local_experts, Qwen-MoE's num_experts; DeepSeek's n_routed_experts and
/// moe_num_experts never), or DeepSeek's latent attention, saying what is modelled.
void check_modelled(const Json& document, const JsonPath& root);

}  // namespace pipeplan
