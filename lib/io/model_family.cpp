#include "io/model_family.hpp"

#include <array>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr std::array<std::string_view, 6> kModelTypes{"llama", "mistral", "qwen2", "gpt2", "mixtral", "qwen2_moe"};
// Hugging Face's class names for the same models.
constexpr std::array<std::string_view, 6> kArchitectures{"LlamaForCausalLM",   "MistralForCausalLM",
                                                         "Qwen2ForCausalLM",   "GPT2LMHeadModel",
                                                         "MixtralForCausalLM", "Qwen2MoeForCausalLM"};

// The keys that give a mixture of experts its experts, with the model_type whose experts
// pipeplan reads under that key (docs/costs.md, "Mixture of experts"); none: not modelled.
struct ExpertKey {
  std::string_view key, model_type;
};
constexpr std::array<ExpertKey, 4> kExpertKeys{{{"num_local_experts", "mixtral"},
                                                {"num_experts", "qwen2_moe"},
                                                {"n_routed_experts", ""},
                                                {"moe_num_experts", ""}}};

// DeepSeek-V2 and V3 compress keys and values into a latent (multi-head latent attention), which
// the attention formulas here do not describe; planned as grouped-query attention they would
// count the wrong weights and activations.
constexpr std::array<std::string_view, 2> kLatentAttentionKeys{"kv_lora_rank", "q_lora_rank"};

const std::string kModelled =
    "pipeplan models decoder-only transformers: model_type llama, mistral, qwen2 (Llama-style layers), gpt2, "
    "mixtral or qwen2_moe (Llama-style layers with experts), architectures LlamaForCausalLM, MistralForCausalLM, "
    "Qwen2ForCausalLM, GPT2LMHeadModel, MixtralForCausalLM or Qwen2MoeForCausalLM";

template <std::size_t N>
bool among(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

bool present(const Json* v) {
  return v != nullptr && !v->is_null();
}

}  // namespace

bool modelled_model_type(std::string_view model_type) {
  return among(kModelTypes, model_type);
}

void check_modelled(const Json& document, const JsonPath& root) {
  std::string model_type;
  if (const Json* type = optional_member(document, "model_type", root); present(type)) {
    if (!type->is_string()) fail_field(root.key("model_type"), "a string", *type);
    model_type = type->get<std::string>();
  }
  for (std::string_view key : kLatentAttentionKeys) {
    if (const Json* v = optional_member(document, key, root); present(v)) {
      throw Error(root.key(key).where() + ": " + v->dump() +
                  ": DeepSeek's multi-head latent attention (q_lora_rank, kv_lora_rank) is not modelled (planned "
                  "as grouped-query attention it would count the wrong weights and activations); " +
                  kModelled);
    }
  }
  for (const ExpertKey& e : kExpertKeys) {
    const Json* experts = optional_member(document, e.key, root);
    if (!present(experts) || (experts->is_number() && experts->get<double>() <= 1)) continue;
    if (!e.model_type.empty() && model_type == e.model_type) continue;  // read by moe_config
    throw Error(root.key(e.key).where() + ": " + experts->dump() + " experts under model_type '" + model_type +
                "': pipeplan models the experts of model_type mixtral (num_local_experts) and qwen2_moe "
                "(num_experts) only, and would plan this one as a dense model of the wrong size; " +
                kModelled);
  }
  if (!model_type.empty() && !modelled_model_type(model_type)) {
    throw Error(root.key("model_type").where() + ": '" + model_type + "' is not modelled; " + kModelled);
  }
  if (const Json* archs = optional_member(document, "architectures", root); archs != nullptr && archs->is_array()) {
    for (std::size_t i = 0; i < archs->size(); ++i) {
      const Json& a = (*archs)[i];
      if (!a.is_string() || !among(kArchitectures, a.get<std::string>())) {
        throw Error(root.key("architectures").index(i).where() + ": " + a.dump() + " is not modelled; " + kModelled);
      }
    }
  }
}

}  // namespace pipeplan
