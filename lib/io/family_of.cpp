#include "io/family_of.hpp"

#include <array>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

bool has_architecture(const ModelFamily& f, std::string_view name) {
  return !name.empty() && (f.architectures[0] == name || f.architectures[1] == name);
}

bool present(const Json* v) {
  return v != nullptr && !v->is_null();
}

// The keys that give a mixture of experts its experts; latent attention's.
constexpr std::array<std::string_view, 4> kExpertKeys{"num_local_experts", "num_experts", "n_routed_experts",
                                                      "moe_num_experts"};
constexpr std::array<std::string_view, 2> kLatentAttentionKeys{"kv_lora_rank", "q_lora_rank"};

}  // namespace

const ModelFamily& family_of(const Json& document, const JsonPath& root) {
  std::string model_type;
  if (const Json* type = optional_member(document, "model_type", root); present(type)) {
    if (!type->is_string()) fail_field(root.key("model_type"), "a string", *type);
    model_type = type->get<std::string>();
  }
  const ModelFamily* family = model_type.empty() ? nullptr : family_named(model_type);
  if (!model_type.empty() && family == nullptr) {
    throw Error(root.key("model_type").where() + ": '" + model_type + "' is not modelled; " + modelled_families());
  }
  if (family == nullptr) family = family_named(optional_member(document, "n_embd", root) != nullptr ? "gpt2" : "llama");
  for (std::string_view key : kLatentAttentionKeys) {
    if (const Json* v = optional_member(document, key, root); present(v) && !family->latent_attention) {
      throw Error(root.key(key).where() + ": " + v->dump() + ": multi-head latent attention (q_lora_rank, " +
                  "kv_lora_rank) under model_type '" + model_type +
                  "', whose family pipeplan reads without it (planned as grouped-query attention it would count the "
                  "wrong weights and activations); " +
                  modelled_families());
    }
  }
  for (std::string_view key : kExpertKeys) {
    const Json* experts = optional_member(document, key, root);
    if (!present(experts) || (experts->is_number() && experts->get<double>() <= 1)) continue;
    if (key == family->expert_key) continue;
    throw Error(root.key(key).where() + ": " + experts->dump() + " experts under model_type '" + model_type +
                "', whose family pipeplan reads its experts from " +
                (family->expert_key.empty() ? std::string("no key (a dense family)")
                                            : "'" + std::string(family->expert_key) + "'") +
                ": it would plan this one as a model of the wrong size; " + modelled_families());
  }
  if (const Json* archs = optional_member(document, "architectures", root); archs != nullptr && archs->is_array()) {
    for (std::size_t i = 0; i < archs->size(); ++i) {
      const Json& a = (*archs)[i];
      bool known = false;
      for (const ModelFamily& f : model_families())
        known = known || (a.is_string() && has_architecture(f, a.get<std::string>()));
      if (!known) {
        throw Error(root.key("architectures").index(i).where() + ": " + a.dump() + " is not modelled; " +
                    modelled_families());
      }
    }
  }
  return *family;
}

}  // namespace pipeplan
