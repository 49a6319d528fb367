#include "plan/model_family.hpp"

#include <array>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr std::array<std::string_view, 4> kModelTypes{"llama", "mistral", "qwen2", "gpt2"};
// Hugging Face's class names for the same models.
constexpr std::array<std::string_view, 4> kArchitectures{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM",
                                                         "GPT2LMHeadModel"};
// The keys that give a mixture of experts its experts, in the families people train.
constexpr std::array<std::string_view, 4> kExpertKeys{"num_local_experts", "num_experts", "n_routed_experts",
                                                      "moe_num_experts"};

const std::string kModelled =
    "pipeplan models dense decoder-only transformers: model_type llama, mistral, qwen2 (Llama-style layers) "
    "or gpt2, architectures LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM or GPT2LMHeadModel";

template <std::size_t N>
bool among(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

bool modelled_model_type(std::string_view model_type) { return among(kModelTypes, model_type); }

void check_modelled(const Json& document, const JsonPath& root) {
  for (std::string_view key : kExpertKeys) {
    const Json* experts = optional_member(document, key, root);
    if (experts != nullptr && !experts->is_null() && !(experts->is_number() && experts->get<double>() <= 1)) {
      throw Error(root.key(key).where() + ": " + experts->dump() +
                  " experts: a mixture of experts, which pipeplan does not model (it would plan it as a dense model "
                  "of the wrong size); " + kModelled);
    }
  }
  if (const Json* type = optional_member(document, "model_type", root); type != nullptr && !type->is_null()) {
    if (!type->is_string()) fail_field(root.key("model_type"), "a string", *type);
    if (!modelled_model_type(type->get<std::string>())) {
      throw Error(root.key("model_type").where() + ": '" + type->get<std::string>() + "' is not modelled; " + kModelled);
    }
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
